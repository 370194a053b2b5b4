import DiceHost
import Foundation

/// `play --die sim[:faults]` or `--die pixels-sim[:faults]`: the REPL plays against a
/// simulated die (or a simulated Pixels die speaking the protocol's bytes through a
/// `PixelsDie`). `roll` throws the die (its roll state shown as it tumbles: handling →
/// rolling with the glyph spinning → rolled and the face, or crooked and a red flash),
/// `disconnect` and `connect` drop and restore its connection; every other command goes to
/// the game as usual, and the die gets the LED commands, roll updates and sensor streams
/// that follow (a Pixel's LED commands are shown as the Blink bytes written to it).
final class DieConsole {
    /// What `--die` asked for.
    struct Choice: Equatable {
        var pixels = false
        var faults = SimulatedDie.Faults()
    }

    let die: SmartDie & ThrowableDie
    let sides: Int
    let count: Int
    let link: DieLink
    /// The simulated Pixel under a `pixels-sim` die (its clock follows the game's).
    let pixel: SimulatedPixel?
    var lastGameTime: Int
    /// The lines the die's events made during the last die command.
    var lines: [String] = []
    /// Whether game events are being shown from here (during a die command) rather than
    /// from the command's reply.
    var showsGameEvents = false

    /// Parses `sim`, `sim:FAULTS`, `pixels-sim` or `pixels-sim:FAULTS`.
    static func choice(from text: String) throws -> Choice {
        for (prefix, pixels) in [("pixels-sim", true), ("sim", false)] where text == prefix || text.hasPrefix(prefix + ":") {
            return Choice(pixels: pixels, faults: try SimulatedDie.Faults.parse(String(text.dropFirst(prefix.count).drop { $0 == ":" })))
        }
        throw SimulatedDie.FaultError(message: "expected 'sim', 'sim:FAULTS', 'pixels-sim' or 'pixels-sim:FAULTS' (e.g. sim:tilt@2,disconnect@3), got '\(text)'")
    }

    /// A Pixels die is one die: rules that throw several are refused (a usage error).
    init(session: GameSession, choice: Choice, seed: UInt64, recorder: GameLogRecorder?) throws {
        let dice = session.game.rules.dice
        sides = dice.sides
        lastGameTime = session.game.now
        if choice.pixels {
            guard dice.count == 1 else {
                throw SimulatedDie.FaultError(message: "a Pixels die is one die; \(session.game.rules.name) throws \(dice.count) at once")
            }
            let pixel = SimulatedPixel(seed: seed, faults: choice.faults, sides: dice.sides)
            let pixelsDie = pixel.makeDie(sides: dice.sides, minimumRollTime: PixelsDie.minimumRollTime(for: session.game.rules))
            self.pixel = pixel
            die = pixelsDie
            count = 1
        } else {
            die = SimulatedDie(seed: seed, faults: choice.faults, sides: dice.sides, count: dice.count)
            pixel = nil
            count = dice.count
        }
        link = DieLink(session: session, die: die, recorder: recorder)
        link.onEvent = { [unowned self] event in self.show(event) }
        if let pixelsDie = die as? PixelsDie {
            pixelsDie.onWrite = { [unowned self] message, bytes in
                guard showsGameEvents, message.id == .blink || message.id == .stopAllAnimations else { return }
                lines.append("die ← \(message.id.name) " + bytes.map { String(format: "%02x", $0) }.joined(separator: " "))
            }
            pixelsDie.onProtocolError = { [unowned self] text in lines.append("error: die: \(text)") }
        }
    }

    /// Connects the die (the first lines of the session).
    func start() -> [String] {
        perform { die.connect() }
    }

    /// A die command's lines, or nil for a command that is the game's.
    func handle(_ line: String) -> [String]? {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        switch words.first {
        case "roll":
            let args = Array(words.dropFirst())
            var values: [Int]?
            var flag: Roll.Flag?
            switch args.first {
            case nil: break
            case "tilt": flag = .tilt
            case "short", "too_short": flag = .tooShort
            default:
                let faces = args.compactMap { Int($0) }.filter { (1...sides).contains($0) }
                guard faces.count == args.count, faces.count == count else {
                    return ["error: roll takes \(count) face value\(count == 1 ? "" : "s") from 1 to \(sides), 'tilt' or 'short'"]
                }
                values = faces
            }
            let lines = perform { die.throwDie(values: values, flag: flag) }
            return die.isConnected || !lines.isEmpty ? lines : ["error: the die is not connected ('connect' reconnects it)"]
        case "disconnect" where words.count == 1:
            return die.isConnected ? perform { die.disconnect() } : ["error: the die is not connected"]
        case "connect" where words.count == 1:
            return die.isConnected ? ["error: the die is already connected"] : perform { die.connect() }
        default:
            return nil
        }
    }

    /// After a game command: the die gets what changed (nothing is shown: the reply has it).
    func sync() {
        followGameClock()
        link.sync()
    }

    /// A simulated Pixel's clock moves with the game's (ticks), besides its own throws.
    func followGameClock() {
        let now = link.game.now
        if now > lastGameTime { pixel?.advance(by: now - lastGameTime) }
        lastGameTime = now
    }

    func perform(_ body: () -> Void) -> [String] {
        followGameClock()
        lines = []
        showsGameEvents = true
        defer { showsGameEvents = false }
        body()
        return lines
    }

    func show(_ event: DieLink.Event) {
        switch event {
        case .die(let report):
            switch report {
            case .rollState(.rolling): lines.append("die rolling " + spin())
            case .rollState(.crooked): lines.append("die crooked: no face up (a red flash)")
            case .rollState(let state): lines.append("die \(state.rawValue)")
            case .roll(let roll): lines.append("die shows \(roll)")
            case .connected: lines.append("die \(die.name) connected")
            case .connectionFailed(let reason): lines.append("die connection failed: \(reason)")
            case .authorisationFailed(let reason): lines.append("die authorisation failed: \(reason)")
            case .disconnected(let reason): lines.append("die disconnected: \(reason)")
            case .battery(let level, _): lines.append("die battery \(level)%")
            case .signal(let rssi): lines.append("die signal \(rssi) dBm")
            case .sensor: break
            }
        case .game(let gameEvent) where showsGameEvents: lines.append(gameEvent.description)
        case .game: break
        case .sent(.rollUpdates(let on)) where showsGameEvents: lines.append("die roll updates \(on ? "on" : "off")")
        case .sent: break
        case .ignored(let reason): lines.append("error: \(reason)")
        }
    }

    /// The glyph spinning while the die tumbles: four faces, the same for the same die
    /// (its identifier names its seed) and roll.
    func spin() -> String {
        var state = die.identifier.utf8.reduce(UInt64(die.rolls)) { ($0 &* 31) &+ UInt64($1) }
        return (0..<4).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Roll.glyph(Int(state >> 61) % 6 + 1)
        }.joined(separator: " ")
    }
}

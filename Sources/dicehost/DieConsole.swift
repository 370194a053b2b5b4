import DiceHost
import Foundation

/// `play --die sim[:faults]`: the REPL plays against a simulated die. `roll` throws the
/// die (its roll state shown as it tumbles: handling → rolling with the glyph spinning →
/// rolled and the face, or crooked and a red flash), `disconnect` and `connect` drop and
/// restore its connection; every other command goes to the game as usual, and the die
/// gets the LED commands, roll updates and sensor streams that follow.
final class DieConsole {
    let die: SimulatedDie
    let link: DieLink
    /// The lines the die's events made during the last die command.
    var lines: [String] = []
    /// Whether game events are being shown from here (during a die command) rather than
    /// from the command's reply.
    var showsGameEvents = false

    /// Parses `sim` or `sim:FAULTS`.
    static func faults(from text: String) throws -> SimulatedDie.Faults {
        guard text == "sim" || text.hasPrefix("sim:") else {
            throw SimulatedDie.FaultError(message: "expected 'sim' or 'sim:FAULTS' (e.g. sim:tilt@2,disconnect@3), got '\(text)'")
        }
        return try SimulatedDie.Faults.parse(String(text.dropFirst(3).drop { $0 == ":" }))
    }

    init(session: GameSession, faults: SimulatedDie.Faults, seed: UInt64, recorder: GameLogRecorder?) {
        let dice = session.game.rules.dice
        die = SimulatedDie(seed: seed, faults: faults, sides: dice.sides, count: dice.count)
        link = DieLink(session: session, die: die, recorder: recorder)
        link.onEvent = { [unowned self] event in self.show(event) }
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
                let faces = args.compactMap { Int($0) }.filter { (1...die.sides).contains($0) }
                guard faces.count == args.count, faces.count == die.count else {
                    return ["error: roll takes \(die.count) face value\(die.count == 1 ? "" : "s") from 1 to \(die.sides), 'tilt' or 'short'"]
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
    func sync() { link.sync() }

    func perform(_ body: () -> Void) -> [String] {
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

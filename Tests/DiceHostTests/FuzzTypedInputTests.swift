@testable import DiceHost
import Foundation
import Lua
import Testing

/// The fuzzer makes typed inputs (`FuzzInput`), printed as REPL lines for reports and
/// shrunk transcripts: a seed still makes the same inputs, run after run, and they are
/// the inputs the command-line generator made from the same choices (kept here as the
/// reference), so a seed reported before still finds what it found.
@Suite struct FuzzTypedInputTests {
    static let games: [(file: String, players: [String])] = [
        ("rules/liars-dice.lua", ["Ann", "Bob", "Cy"]), ("rules/craps.lua", ["Ann", "Bob"]), ("rules/mia.lua", ["Ann", "Bob", "Cy"]),
        ("rules/snap.lua", ["Ann", "Bob"]), ("rules/race.lua", ["Ann", "Bob"]), ("rules/labyrinth.lua", ["Ann"]),
        ("examples/rules/typed-arguments.lua", ["Ann", "Bob"]),
    ]

    @Test func theSameSeedMakesTheSameInputs() throws {
        for (file, players) in Self.games {
            let game = FuzzGame(rulesFile: file, players: players, checks: [], inputsPerCase: 80)
            let first = try game.play(seed: 46, choices: FuzzChoices(seed: 46)), again = try game.play(seed: 46, choices: FuzzChoices(seed: 46))
            #expect(first.inputs.count == 80, "\(file)")
            #expect(first.inputs == again.inputs && first.choices == again.choices, "\(file)")
            let replayed = try game.play(seed: 46, choices: FuzzChoices(replaying: first.choices))
            #expect(replayed.inputs == first.inputs, "a case played again from its choices: \(file)")
            let other = try game.play(seed: 47, choices: FuzzChoices(seed: 47))
            #expect(other.inputs != first.inputs, "\(file)")
        }
    }

    @Test func theTypedInputsAreTheInputsTheLineGeneratorMadeFromTheSameChoices() throws {
        var compared = 0
        for (file, players) in Self.games {
            for seed: UInt64 in [1, 46, 99] {
                let game = try Game(rulesFile: file, players: players, seed: seed)
                let session = GameSession(game: game, files: .test(transcript: file, temporaryFolder: NSTemporaryDirectory()))
                let typed = FuzzInputGenerator(rules: game.rules), lines = LineFuzzInputGenerator(rules: game.rules)
                var typedChoices = FuzzChoices(seed: seed), lineChoices = FuzzChoices(seed: seed)
                for step in 0..<120 {
                    let input = typed.next(session.game, &typedChoices)
                    let line = lines.next(session.game, &lineChoices)
                    #expect(typedChoices.recorded == lineChoices.recorded, "\(file) seed \(seed) input \(step + 1): \(line)")
                    _ = session.run(line)
                    switch input {
                    case .input(let expected): #expect(session.lastInput == expected, "\(file) seed \(seed) input \(step + 1): '\(line)' vs '\(input.line)'")
                    case .undo, .redo: #expect(line == input.line)
                    }
                    compared += 1
                }
            }
        }
        #expect(compared == Self.games.count * 3 * 120)
    }

    @Test func aTypedInputIsPrintedAsALineThatReadsBackAsIt() throws {
        let game = FuzzGame(rulesFile: "rules/liars-dice.lua", players: ["Ann", "Bob"], checks: [], inputsPerCase: 200)
        let result = try game.play(seed: 5, choices: FuzzChoices(seed: 5))
        #expect(result.inputs.contains { $0.hasPrefix("tick ") && $0.hasSuffix("ms") }, "\(result.inputs)")
        #expect(result.inputs.contains { $0.hasPrefix("as ") }, "\(result.inputs)")
    }
}

/// The generator as it was when a case was made of command lines: the reference the
/// typed one is checked against.
struct LineFuzzInputGenerator {
    typealias Kind = FuzzInputGenerator.Kind
    static var table: [Kind] { FuzzInputGenerator.table }
    static let ticks = ["0ms", "1ms", "250ms", "1s", "5s", "60s"]
    /// Arguments nobody lists: the boundaries and wrong types an action must refuse.
    static let wrongArguments: [[String]] = [[], ["0"], ["-1"], ["1"], ["999999"], ["1.5"], ["x"], ["true"], ["1", "1", "1"]]

    /// Whether values of rolls must be given (a game with secret rolls: the secrets
    /// check changes them), rather than drawn from the game's generator.
    let givesRollValues: Bool

    init(rules: RuleSet) {
        givesRollValues = rules.secretRolls
    }

    func next(_ game: Game, _ choices: inout FuzzChoices) -> String {
        let kind = Self.table[choices.draw(Self.table.count)]
        // Over, a move starts the next game; the same choices make a restart whether the
        // game is over or not, so shrinking can drop the moves that ended it.
        if game.isOver, [.roll, .bot, .action].contains(kind) { return "restart" }
        switch kind {
        case .roll: return rollWithValues(game, &choices)
        case .bot: return "bot"
        case .action: return action(game, &choices, by: nil) ?? rollWithValues(game, &choices)
        case .outOfTurn:
            let others = game.playerNames.filter { $0 != game.currentPlayer }
            guard let other = choices.pick(others) else { return rollWithValues(game, &choices) }
            if choices.draw(3) == 0 { return "as \(other) " + rollWithValues(game, &choices) }
            return action(game, &choices, by: other).map { "as \(other) \($0)" } ?? "as \(other) roll"
        case .randomRoll: return givesRollValues ? rollWithValues(game, &choices) : "roll"
        case .flaggedRoll: return choices.draw(2) == 0 ? "roll tilt" : "roll short"
        case .tick: return "tick " + (choices.pick(Self.ticks) ?? "0ms")
        case .undo: return "undo"
        case .redo: return "redo"
        case .restart: return choices.draw(3) == 0 ? "restart" : "bot"
        case .reload: return choices.draw(4) == 0 ? "reload" : "bot"
        case .device: return choices.draw(2) == 0 ? "device disconnected" : "device connected"
        }
    }

    /// `roll V…`: faces of the current player's dice, now and then one a die lacks.
    func rollWithValues(_ game: Game, _ choices: inout FuzzChoices) -> String {
        let dice = (try? game.dice(forSeat: game.seat(of: nil))) ?? game.rules.dice
        let sides = max(1, dice.sides)
        if game.rules.keepsDice, choices.draw(2) == 1 {
            // roll keep P… = V…: some dice of the last roll kept, the others given.
            var kept: [String] = [], rolled: [String] = []
            for position in 1...max(1, dice.count) {
                if choices.draw(2) == 1 { kept.append(String(position)) } else { rolled.append(String(choices.draw(sides) + 1)) }
            }
            return (["roll", "keep"] + kept + (rolled.isEmpty ? [] : ["="] + rolled)).joined(separator: " ")
        }
        var values: [String] = []
        for _ in 0..<max(1, dice.count) {
            values.append(String(choices.draw(sides) + 1))
        }
        if choices.draw(16) == 15 { values[0] = choices.draw(2) == 0 ? "0" : String(sides + 1) }
        return "roll " + values.joined(separator: " ")
    }

    /// An action of `player` (nil: whose turn it is; another player: an anytime action,
    /// or now and then one that is not) with listed arguments, or boundary and wrong ones.
    func action(_ game: Game, _ choices: inout FuzzChoices, by player: String?) -> String? {
        var names = game.rules.actions
        if player != nil {
            let anytime = names.filter(game.rules.anytime.contains)
            if !anytime.isEmpty && choices.draw(4) != 0 { names = anytime }
        }
        guard let name = choices.pick(names) else { return nil }
        let lists = ((try? game.legalArguments(of: name, by: player)) ?? []).compactMap(Self.words)
        if !lists.isEmpty, choices.draw(8) != 7, let list = choices.pick(lists) {
            return ([name] + list).joined(separator: " ")
        }
        let wrong = choices.pick(Self.wrongArguments) ?? []
        return ([name] + wrong).joined(separator: " ")
    }

    /// Arguments as words of a command line (nil when one cannot be typed: a string
    /// with spaces, or one that would read as a number).
    static func words(_ list: [LuaValue]) -> [String]? {
        var words: [String] = []
        for value in list {
            switch value {
            case .integer, .boolean: words.append(value.description)
            case .number(let d):
                guard d.isFinite else { return nil }
                words.append(value.description)
            case .string(let s):
                guard !s.isEmpty, !s.contains(where: \.isWhitespace), GameSession.argument(s) == .string(s) else { return nil }
                words.append(s)
            default: return nil
            }
        }
        return words
    }
}

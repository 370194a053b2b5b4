@testable import DiceHost
import Lua
import Testing

/// A failed input leaves the game exactly as it was (invariant 4), checked over random
/// play of the shipped games: legal moves (the bots') mixed with inputs that are refused
/// or fail (out of turn, unknown actions, actions with random arguments, impossible
/// rolls), with and without the undo history a served room goes without. After each
/// input that throws, everything reachable from `g` (a deep compare, metatables aside),
/// the host's state and every seat's view equal what they were before it.
@Suite struct RollbackPropertyTests {
    static let games = ["rules/craps.lua", "rules/labyrinth.lua", "rules/liars-dice.lua", "rules/mia.lua",
                        "rules/race-doubles.lua", "rules/race.lua", "rules/snap.lua",
                        "examples/rules/pig.lua", "examples/dice-games/yacht.lua"]

    /// SplitMix64: the test's own choices, reproducible from the seed in a failure.
    struct Choices {
        var generator: SplitMix64
        init(state: UInt64) { generator = SplitMix64(seed: state) }
        mutating func next(_ bound: Int) -> Int { Int(generator.next() % UInt64(max(bound, 1))) }
    }

    /// Everything under `t`, keys in order, shared tables and cycles by their first path.
    static func dump(_ lua: LuaState, _ value: LuaValue, _ seen: inout [LuaRef], depth: Int = 0) -> String {
        switch value {
        case .table: break
        case .function, .userdata, .thread, .lightUserdata: return value.typeName // by reference: not comparable
        default: return "\(value.typeName):\(value)"
        }
        guard case .table(let t) = value else { return "" }
        if let index = seen.firstIndex(of: t) { return "@\(index)" }
        seen.append(t)
        guard depth < 24 else { return "{…}" }
        return "{" + lua.entries(t).map { key, v in
            dump(lua, key, &seen, depth: depth + 1) + "=" + dump(lua, v, &seen, depth: depth + 1)
        }.joined(separator: ",") + "}"
    }

    static func fingerprint(_ game: Game) -> [String] {
        var seen: [LuaRef] = []
        let g = dump(game.lua, .table(game.gameTable), &seen)
        let views = ([nil] + game.playerNames).map { viewer in (try? game.view(for: viewer).description) ?? "view failed" }
        return [g, "now \(game.now)", "rolls \(game.rollCount)", "turns \(game.turnCount)", "outcome \(String(describing: game.outcome))",
                "random \(game.lua.random.state)", "current \(game.currentPlayer ?? "-")"]
            + game.events.map(\.description) + views
    }

    /// One random input: a bot's move, or one that is likely refused.
    static func randomInput(_ game: Game, _ choices: inout Choices) throws {
        let players = game.playerNames
        let someone = players[choices.next(players.count)]
        let actions = game.rules.actions
        switch choices.next(6) {
        case 0, 1: try game.playBotMove()
        case 2: try game.roll(by: someone)
        case 3: try game.roll(values: [choices.next(9) - 1], by: someone)
        case 4:
            let name = actions.isEmpty || choices.next(4) == 0 ? "no_such_action" : actions[choices.next(actions.count)]
            let arguments: [LuaValue] = (0..<choices.next(3)).map { _ in
                switch choices.next(3) {
                case 0: return .integer(Int64(choices.next(12)) - 2)
                case 1: return .string(["hold", "1", "x", ""][choices.next(4)])
                default: return .boolean(choices.next(2) == 0)
                }
            }
            try game.act(name, by: someone, arguments: arguments)
        default: try game.advance(by: choices.next(3) * 700)
        }
    }

    @Test(arguments: games, [true, false])
    func aFailedInputLeavesTheGameExactlyAsBefore(file: String, undo: Bool) throws {
        var choices = Choices(state: UInt64(file.utf8.count * 7919 + (undo ? 1 : 0)))
        var game = try Game(rulesFile: file, players: [], seed: 11)
        game.keepsUndoHistory = undo
        var failures = 0
        for step in 0..<80 {
            if game.isOver {
                game = try Game(rulesFile: file, players: [], seed: UInt64(step))
                game.keepsUndoHistory = undo
            }
            let before = Self.fingerprint(game)
            do {
                try Self.randomInput(game, &choices)
            } catch {
                failures += 1
                let after = Self.fingerprint(game)
                #expect(after == before, "\(file) step \(step) (undo \(undo)): \(error)")
                if after != before { return }
            }
        }
        #expect(failures > 0, "\(file): no input failed, so nothing was checked")
    }
}

import DiceHost
@testable import DiceHostServer
import Foundation
import Lua
import Testing

/// A seat's `moves` are listed for all of its actions in one look at the game (issue 32)
/// and must read byte for byte as when each action was listed on its own, with the game
/// put back after each: in every shipped game, for every seat and a spectator, after
/// every input of several random games.
struct SeatMovesSameBytesTests {
    /// The moves as they were written before issue 32: one `legalArguments` (one look,
    /// one compare of `g` with its copy) per action.
    static func movesOneActionAtATime(_ game: Game, for viewer: String?) -> String? {
        guard let viewer, game.playerNames.contains(viewer) else { return nil }
        let current = game.currentPlayer
        var fields: [String] = []
        for action in game.rules.actions {
            let declared: Game.ActionArguments
            do { declared = try game.declaredArguments(of: action) } catch { continue }
            let mayMove = !game.isOver
                && (game.rules.anytime.contains(action) || current == nil || current == viewer)
                && (game.rules.whileOut.contains(action) || !game.isOut(viewer))
            var lists: [[LuaValue]] = []
            switch declared {
            case .notListed: continue
            case .lists(let fixed): if mayMove { lists = fixed }
            case .perPosition:
                if mayMove {
                    do { lists = try game.legalArguments(of: action, by: viewer) } catch { continue }
                }
            }
            let moves = lists.compactMap { arguments -> String? in
                var parts: [String] = []
                for argument in arguments {
                    switch argument {
                    case .integer(let n): parts.append(String(n))
                    case .number(let d) where d.isFinite: parts.append(String(d))
                    case .boolean(let b): parts.append(b ? "true" : "false")
                    case .string(let text) where (1...ServerProtocol.maxArgumentBytes).contains(text.utf8.count)
                        && !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }):
                        parts.append(GameEvent.quote(text))
                    default: return nil
                    }
                }
                return "[" + parts.joined(separator: ",") + "]"
            }
            fields.append(GameEvent.quote(action) + ":[" + moves.joined(separator: ",") + "]")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A small deterministic generator (SplitMix64) for the test's own choices.
    struct Picker {
        var generator: SplitMix64
        init(state: UInt64) { generator = SplitMix64(seed: state) }
        mutating func next(_ bound: Int) -> Int { Int(generator.next() % UInt64(max(bound, 1))) }
    }

    /// Compares both ways for every seat and a spectator; returns how many seats had moves.
    static func compare(_ game: Game, _ context: String) -> Int {
        var listed = 0
        for viewer in game.playerNames.map(Optional.some) + [nil] {
            let expected = movesOneActionAtATime(game, for: viewer)
            let events = game.events.count
            let actual = SeatView.movesJSON(game, for: viewer)
            #expect(actual == expected, "\(context), seat \(viewer ?? "spectator")")
            #expect(game.events.count == events, "listing moves logs nothing")
            if let actual, actual.contains("[[") { listed += 1 }
        }
        return listed
    }

    /// Plays one random game: each step a roll by whoever's turn it is or a listed move of a
    /// random seat (refused inputs are skipped), comparing the moves after each.
    static func play(_ file: String, players count: Int, seed: UInt64, steps: Int) -> Int {
        let players = ["Ann", "Bob", "Cy", "Dee"].prefix(count).map { $0 }
        // A count of players the rules do not take is no game to compare.
        guard let game = try? Game(rulesFile: file, players: players, seed: seed) else { return 0 }
        var picker = Picker(state: seed)
        var listed = compare(game, "\(file) seed \(seed) at start")
        for step in 1...steps where !game.isOver {
            let seat = players[picker.next(players.count)]
            if game.rules.hasDice, picker.next(3) == 0 {
                try? game.roll(by: game.currentPlayer ?? seat)
            } else {
                let action = game.rules.actions.isEmpty ? nil : game.rules.actions[picker.next(game.rules.actions.count)]
                if let action, let lists = try? game.legalArguments(of: action, by: seat), !lists.isEmpty {
                    try? game.act(action, by: seat, arguments: lists[picker.next(lists.count)])
                } else {
                    try? game.roll(by: game.currentPlayer ?? seat)
                }
            }
            listed += compare(game, "\(file) seed \(seed) step \(step)")
        }
        return listed
    }

    @Test func everyShippedGamesMovesReadAsWhenEachActionWasListedAlone() throws {
        let folder = TestServer.repositoryRules
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".lua") }.sorted()
        #expect(files.contains("liars-dice.lua") && files.contains("mia.lua"))
        var listed: [String: Int] = [:]
        for file in files {
            let path = folder + "/" + file
            for players in 1...4 {
                for seed: UInt64 in [1, 7, 42] {
                    listed[file, default: 0] += Self.play(path, players: players, seed: seed, steps: 120)
                }
            }
        }
        // The games with lists of the position made some: the comparison saw real moves.
        #expect((listed["liars-dice.lua"] ?? 0) > 50 && (listed["mia.lua"] ?? 0) > 10, "\(listed)")
    }

    static let writingChoices = """
        local r = rules { name = "Writes", players = {2, 2}, dice = "1d6" }
        function r.setup(g) g.state.n = 0; g:next_turn(g.players[1]) end
        function r.roll(g, p, roll) end
        r.actions = {
          count = function(g, p, n) end,
          seen = function(g, p, n) end,
          spin = function(g, p, n) end,
          after = function(g, p, n) end,
          odd = function(g, p, w) end,
        }
        r.choices = {
          -- writes to g while it lists: g is read-only in a look, so this list fails and is left out
          count = function(g, p) g.state.n = g.state.n + 1; return {g.state.n} end,
          seen = function(g, p) return {g.state.n, math.random(1000)} end,
          -- runs out of its budget: left out, the next list has a budget of its own
          spin = function(g, p) while true do end end,
          after = function(g, p) return {g.state.n + 10} end,
          -- moves a client could not send back are left out, first, inside and last
          odd = function(g, p) return {"two words", 1, 0/0, "ok", {1, 1/0}} end,
        }
        return r
        """

    @Test func aChoicesFunctionThatWritesToGOrRunsOutIsListedAsWhenEachActionWasListedAlone() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seat-moves-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("writes.lua")
        try Self.writingChoices.write(to: file, atomically: true, encoding: .utf8)
        let game = try Game(rulesFile: file.path, players: ["Ann", "Bob"], seed: 3,
                            limits: LuaLimits(memoryBytes: 16 << 20, instructionBudget: 200_000))
        let moves = SeatView.movesJSON(game, for: "Ann")
        #expect(moves == Self.movesOneActionAtATime(game, for: "Ann"))
        // Each list saw g as the last input left it; the writing one and the spinning one
        // are left out.
        #expect(moves?.hasPrefix("{\"after\":[[10]],\"odd\":[[1],[\"ok\"]],\"seen\":[[0],[") == true, "\(moves ?? "nil")")
        #expect(moves?.contains("spin") == false)
        #expect(moves?.contains("count") == false)
        #expect(SeatView.movesJSON(game, for: "Ann") == moves, "g unchanged: the same lists again")
        #expect(SeatView.movesJSON(game, for: "Bob") == "{\"after\":[],\"count\":[],\"odd\":[],\"seen\":[],\"spin\":[]}")
    }
}

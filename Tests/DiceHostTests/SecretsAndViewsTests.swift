import DiceHost
import Foundation
import Lua
import Testing

/// Event audiences, secret rolls, views and fair bots (invariant 6).
@Suite struct SecretsAndViewsTests {
    static let cupRules = """
        local r = rules { name = "Cup", players = {2, 3}, dice = "3d6", secret_rolls = true }
        function r.setup(g) for _, p in ipairs(g.players) do p.dice = 3 end end
        function r.roll(g, p, r)
          p.cup = {table.unpack(r.values)}
          g:tell(p, "you hold %d", r.total)
          g:emit("rolled", {who = p.name}, {p})
          g:next_turn()
        end
        r.actions = {
          show = function(g, p) g:reveal(p, p.cup) end,
          lose = function(g, p) p.dice = p.dice - 1 end,
          peek = function(g, p) g.params.dice = "1d6" end,
        }
        function r.view(g, viewer)
          local touched = true     -- a view only reads (a write to g would fail)
          local v = {players = {}}
          for i, p in ipairs(g.players) do
            local cup = nil
            if p.cup and p == viewer then cup = {values = p.cup, flag = "ok", ok = true, total = 0}
            elseif p.cup then cup = hidden("dice", #p.cup) end
            v.players[i] = {name = p.name, cup = cup}
          end
          return v
        end
        function r.bot(v, p)
          -- a fair bot gets the view: it has no g.state and no other player's cup
          if v.state ~= nil or getmetatable(v) ~= nil then error("the bot saw g", 0) end
          return "roll"
        end
        return r
        """

    @Test func aSecretRollIsSeenOnlyByItsRoller() throws {
        let game = try makeGame(Self.cupRules)
        try game.roll(values: [2, 5, 6])
        #expect(log(game) == ["turn Ann", "[to Ann] roll Ann ⚁ ⚄ ⚅ = 13", "[to Ann] say you hold 13",
                              "[to Ann] emit rolled {who=\"Ann\"}", "turn Bob"])
        let roll = game.events[2]
        #expect(roll.audience == ["Ann"])
        #expect(roll.seen(by: "Ann") == roll)
        #expect(roll.seen(by: "Bob")?.description == "roll Ann ▢ ▢ ▢ (hidden)")
        #expect(roll.seen(by: nil)?.json.contains("\"values\"") == false)
        #expect(game.events[3].seen(by: "Bob") == nil && game.events[4].seen(by: nil) == nil)
        #expect(roll.json.hasSuffix(",\"to\":[\"Ann\"]}"))
    }

    @Test func revealShowsTheCupToEveryone() throws {
        let game = try makeGame(Self.cupRules)
        try game.roll(values: [2, 5, 6])
        try game.roll(values: [1, 1, 1])
        try game.act("show", by: "Ann")
        let reveal = try #require(game.events.last)
        #expect(reveal.description == "reveal Ann ⚁ ⚄ ⚅ = 13" && reveal.audience == nil)
        #expect(reveal.seen(by: "Bob") == reveal)
    }

    @Test func aViewKeepsHostKindsAndHidesOthersCups() throws {
        let game = try makeGame(Self.cupRules)
        try game.roll(values: [2, 5, 6])
        let ann = try game.view(for: "Ann"), bob = try game.view(for: "Bob"), spectator = try game.view(for: nil)
        let annCup = ann["players"].flatMap { if case .array(let a) = $0 { return a[0]["cup"] } else { return nil } }
        #expect(annCup?["kind"] == .string("roll") && annCup?["values"] == .array([.integer(2), .integer(5), .integer(6)]))
        for view in [bob, spectator] {
            let cup = view["players"].flatMap { if case .array(let a) = $0 { return a[0]["cup"] } else { return nil } }
            #expect(cup == .object(["kind": .string("hidden"), "what": .string("dice"), "count": .integer(3)]))
            #expect(!view.description.contains("5,6"))
        }
        // Looking changed nothing.
        #expect(game.lua.get(game.state.tableRef!, "touched") == .nil)
        #expect(try game.viewLines(for: "Bob") == ["players: {{cup=(3 dice hidden), name=\"Ann\"}, {name=\"Bob\"}}"])
        #expect(throws: GameError.self) { _ = try game.view(for: "Zed") }
    }

    @Test func withoutAViewEverythingIsVisible() throws {
        let game = try makeGame(minimalRules)
        try game.roll(values: [4])
        let view = try game.view(for: "Bob")
        #expect(view["state"] != nil)
        #expect(view.description.contains("\"score\":4"))
    }

    /// Secret rolls and no view hook: the rules keep nothing of a roll but the host's own
    /// `p.last_roll`, which every seat's view showed until the default view hid it.
    static let openCupRules = """
        local r = rules { name = "Open cup", players = {2, 3}, dice = "3d6", secret_rolls = true }
        function r.roll(g, p, r) g.state.rolls = (g.state.rolls or 0) + 1; g:next_turn() end
        function r.bot(v, p)
          for _, q in ipairs(v.players) do
            if q.name ~= p.name and q.last_roll and q.last_roll.values then error("the bot saw " .. q.name .. "'s roll", 0) end
          end
          return "roll"
        end
        return r
        """

    @Test func withoutAViewHookAnotherPlayersSecretRollIsAHiddenCup() throws {
        let game = try makeGame(Self.openCupRules)
        try game.roll(values: [2, 5, 6])
        #expect(game.hasView)
        func annsLastRoll(_ view: JSONValue) -> JSONValue? {
            view["players"].flatMap { if case .array(let a) = $0 { return a[0]["last_roll"] } else { return nil } }
        }
        let ann = try game.view(for: "Ann")
        #expect(annsLastRoll(ann)?["kind"] == .string("roll") && annsLastRoll(ann)?["values"] == .array([.integer(2), .integer(5), .integer(6)]))
        for viewer in ["Bob", nil] as [String?] {
            let view = try game.view(for: viewer)
            #expect(annsLastRoll(view) == .object(["kind": .string("hidden"), "what": .string("dice"), "count": .integer(3)]))
            #expect(!view.description.contains("\"roll\"") && !view.description.contains("[2,5,6]"), "\(view)")
            #expect(view["state"]?["rolls"] == .integer(1))
        }
        #expect(try game.viewLines(for: "Bob").first?.contains("last_roll=(3 dice hidden)") == true)
        // Looking changed nothing: Ann's roll is still hers.
        #expect(try game.view(for: "Ann") == ann)
    }

    @Test func aBotOfSecretRollsWithoutAViewHookSeesNoOtherCup() throws {
        let game = try makeGame(Self.openCupRules, players: ["Ann", "Bob", "Cy"])
        for _ in 0..<6 { try game.playBotMove() }
        #expect(game.rollCount == 6)
    }

    @Test func aPlayersNumberOfDiceCanChange() throws {
        let game = try makeGame(Self.cupRules)
        try game.act("lose", by: "Ann")
        expectGameError("roll needs 2 values for 2d6, got 3") { try game.roll(values: [1, 2, 3]) }
        try game.roll()
        #expect(log(game).contains { $0.hasPrefix("[to Ann] roll Ann ") && $0.split(separator: " ").count == 8 })  // two faces, "=", total
        // g.params.dice, assigned by a hook, is honoured (Bob has p.dice = 3, which wins).
        try game.act("peek", by: "Bob")
        try game.act("lose", by: "Bob"); try game.act("lose", by: "Bob"); try game.act("lose", by: "Bob")
        expectGameError("Bob has no dice to roll") { try game.roll() }
    }

    @Test func paramsDiceAssignedByAHookIsHonoured() throws {
        let rules = """
            local r = rules { name = "Grow", players = 1, dice = "1d6" }
            function r.roll(g, p, r) g:say("%d dice", #r.values); g.params.dice = "3d6" end
            return r
            """
        let game = try makeGame(rules, players: ["Ann"])
        try game.roll()
        try game.roll()
        #expect(log(game).filter { $0.hasPrefix("say") } == ["say 1 dice", "say 3 dice"])
    }

    @Test func aFairBotDecidesFromItsView() throws {
        let game = try makeGame(Self.cupRules)
        #expect(game.hasView)
        try game.playBotMove()
        try game.playBotMove()
        #expect(game.rollCount == 2)
    }

    @Test func privateEventsAreLoggedAndReplayed() throws {
        let game = try Game(source: Self.cupRules, path: "cup.lua", players: ["Ann", "Bob"], seed: 3)
        var lines: [String] = []
        let recorder = GameLogRecorder { lines.append($0); return nil }
        recorder.begin(game)
        let session = GameSession(game: game)
        for input in ["roll", "roll", "as Ann show"] { _ = recorder.run(input, in: session) }
        #expect(lines.contains { $0.contains("\"to\":[\"Ann\"]") })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dicehost-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.cupRules.write(to: folder.appendingPathComponent("cup.lua"), atomically: true, encoding: .utf8)
        let relinked = lines.map { $0.replacingOccurrences(of: "\"cup.lua\"", with: GameEvent.quote(folder.appendingPathComponent("cup.lua").path)) }
        let report = GameReplay.run(try GameLog.parse(relinked.joined(separator: "\n")))
        #expect(report.matched, "\(report.lines)")
    }

    @Test func aSeatedSessionShowsOnlyItsSeat() throws {
        let game = try makeGame(Self.cupRules)
        let session = GameSession(game: game)
        session.seat = "Bob"
        #expect(session.run("roll 1 2 3").lines == ["roll Ann ▢ ▢ ▢ (hidden)", "turn Bob"])
        #expect(session.run("state").lines == ["players: {{cup=(3 dice hidden), name=\"Ann\"}, {name=\"Bob\"}}"])
        #expect(session.run("view Ann").lines.first?.hasPrefix("error: this session is seated as Bob") == true)
        #expect(session.run("as Bob roll 4 5 6").lines.first == "[to Bob] roll Bob ⚃ ⚄ ⚅ = 15")
    }

    @Test func liarsDiceSimulatesWithFairBots() throws {
        var plan = Simulation.Plan(rulesFile: "rules/liars-dice.lua", games: 40, seed: 9)
        plan.players = ["Ann", "Bob", "Cy"]
        plan.threads = 2
        let result = try Simulation.run(plan)
        #expect(result.errors == 0)
        #expect(result.wins.reduce(0, +) + result.draws == 40)
    }

    @Test func miaSimulatesWithFairBots() throws {
        var plan = Simulation.Plan(rulesFile: "rules/mia.lua", games: 40, seed: 9)
        plan.threads = 2
        let result = try Simulation.run(plan)
        #expect(result.errors == 0)
        #expect(result.wins.reduce(0, +) + result.draws == 40)
    }
}

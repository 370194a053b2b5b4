import DiceHost
import Foundation
import Lua
import Testing

/// What a designer writing new games runs into (issue 13): reload, errors, emit, turn
/// order, solo games, variants, misspelled hooks, LED blinks, saved sessions.
@Suite struct DesignerLoopTests {
    func temporaryFolder() throws -> String {
        let dir = NSTemporaryDirectory() + "dicehost-designer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func race(target: Int, name: String = "Race") -> String {
        """
        local r = rules { name = "\(name)", players = {1, 2}, params = { target = \(target), bonus = 1 } }
        function r.roll(g, p, roll) g:say("target %d", g.params.target) end
        return r
        """
    }

    // MARK: Reload

    @Test func aReloadAppliesNewParamDefaultsAndSaysWhatChanged() throws {
        let path = try temporaryFolder() + "/race.lua"
        try race(target: 25).write(toFile: path, atomically: true, encoding: .utf8)
        let game = try Game(rulesFile: path, players: ["Ann"])
        try race(target: 30).write(toFile: path, atomically: true, encoding: .utf8)
        try game.reload()
        #expect(game.events.last?.description == "reload Race; params: target 25 → 30")
        try game.roll(values: [1])
        #expect(game.events.last?.description == "say target 30")
    }

    @Test func aParamSetOnTheCommandLineKeepsItsValueOverAReload() throws {
        let path = try temporaryFolder() + "/race.lua"
        try race(target: 25).write(toFile: path, atomically: true, encoding: .utf8)
        let game = try Game(rulesFile: path, players: ["Ann"], params: [("target", "40")])
        try race(target: 30).write(toFile: path, atomically: true, encoding: .utf8)
        try game.reload()
        #expect(game.events.last?.description == "reload Race")
        try game.roll(values: [1])
        #expect(game.events.last?.description == "say target 40")
    }

    @Test func aVariantFollowsItsBaseOnReload() throws {
        let dir = try temporaryFolder()
        func base(_ word: String, target: Int) -> String {
            """
            local base = rules { name = "Base", players = 1, params = { target = \(target) } }
            function base.roll(g, p, r) g:say("\(word) %d", g.params.target) end
            return base
            """
        }
        try base("old", target: 10).write(toFile: dir + "/base.lua", atomically: true, encoding: .utf8)
        try """
            local base = require "base"
            local variant = rules.extend(base, { name = "Variant", params = { extra = 1 } })
            return variant
            """.write(toFile: dir + "/variant.lua", atomically: true, encoding: .utf8)
        let game = try Game(rulesFile: dir + "/variant.lua", players: ["Ann"])
        try game.roll(values: [1])
        #expect(game.events.last?.description == "say old 10")
        try base("new", target: 20).write(toFile: dir + "/base.lua", atomically: true, encoding: .utf8)
        try game.reload()
        #expect(game.events.last?.description == "reload Variant; params: target 10 → 20")
        try game.roll(values: [1])
        #expect(game.events.last?.description == "say new 20")
    }

    // MARK: Errors and events

    @Test func errorAtLevelZeroHasNoPositionAndIsARefusal() throws {
        let game = try makeGame("""
            local r = rules { name = "E", players = {1, 2} }
            function r.roll(g, p, roll) end
            r.actions = { refuse = function(g, p) error("not now", 0) end, fail = function(g, p) error("broken") end }
            return r
            """)
        expectGameError("not now") { try game.act("refuse") }
        expectGameError("test.lua:3: broken") { try game.act("fail") }
        let session = GameSession(game: game)
        _ = session.run("refuse")
        #expect(!session.sawRuleError)
        _ = session.run("fail")
        #expect(session.sawRuleError)
    }

    @Test func emittingATableShowsItsContentsInKeyOrder() throws {
        let game = try makeGame("""
            local r = rules { name = "E", players = {1, 2} }
            function r.roll(g, p, roll) g:emit("board", {b = 2, a = {1, 2, 3}, [5] = "x", roll = roll}) end
            return r
            """)
        try game.roll(values: [4])
        #expect(game.events.last?.description == "emit board {[5]=\"x\", a={1, 2, 3}, b=2, roll=⚃}")
    }

    // MARK: Turn order

    let turnRules = """
        local r = rules { name = "Turns", players = {2, 3} }
        function r.roll(g, p, roll) g:say("%s rolled", p.name); g:next_turn() end
        r.actions = { bid = function(g, p) g:say("%s bids", p.name) end, snap = function(g, p) g:say("%s snaps", p.name) end }
        r.anytime = {"snap"}
        return r
        """

    @Test func aRollOrActionOutOfTurnIsRefusedBeforeAnyHook() throws {
        let game = try makeGame(turnRules)
        let before = game.events.count
        expectGameError("it is Ann's turn, not Bob's") { try game.roll(values: [3], by: "Bob") }
        expectGameError("it is Ann's turn, not Bob's") { try game.act("bid", by: "Bob") }
        #expect(game.events.count == before)
        try game.roll(values: [3], by: "Ann")
        #expect(game.currentPlayer == "Bob")
    }

    @Test func anActionListedInAnytimeMayComeFromAnyone() throws {
        let game = try makeGame(turnRules)
        try game.act("snap", by: "Bob")
        #expect(game.events.last?.description == "say Bob snaps")
        #expect(game.rules.anytime == ["snap"])
    }

    @Test func anytimeMustNameInputsTheRulesHave() throws {
        #expect(throws: GameError.self) {
            _ = try makeGame(turnRules.replacingOccurrences(of: "r.anytime = {\"snap\"}", with: "r.anytime = {\"snpa\"}"))
        }
    }

    // MARK: Solo games

    @Test func aLonePlayerCanLose() throws {
        let game = try makeGame("""
            local r = rules { name = "Solo", players = 1 }
            function r.roll(g, p, roll) if roll.value == 1 then g:lose(p) else g:win(p) end end
            return r
            """, players: ["Ann"])
        try game.roll(values: [1])
        #expect(game.outcome == .loss("Ann"))
        #expect(log(game).suffix(1) == ["lose Ann"])
        expectGameError("the game is over (Ann lost); use restart to play again") { try game.roll(values: [2]) }
    }

    // MARK: check

    @Test func aMisspelledHookIsAWarningNamingTheNearestHook() throws {
        let game = try makeGame("""
            local r = rules { name = "Typos", players = 1 }
            function r.roll(g, p, roll) end
            function r.on_rol(g, p, roll) end
            function r.turn_start(g, p) end
            function r.move(g, p) end -- a helper: far from every hook
            return r
            """, players: ["Ann"])
        #expect(game.rules.warnings.count == 2)
        #expect(game.rules.warnings.contains { $0.hasPrefix("unknown rule field 'on_rol'") && $0.hasSuffix("did you mean 'roll'?") })
        #expect(game.rules.warnings.contains { $0.hasPrefix("unknown rule field 'turn_start'") && $0.hasSuffix("did you mean 'turn'?") })
    }

    // MARK: LEDs

    @Test func aBlinkReturnsToTheSteadyColourItInterrupted() {
        var timeline = LEDTimeline()
        timeline.apply(LEDCommand(.set, mask: .face(1), color: LEDColor.named["green"]!), at: 0)
        timeline.apply(LEDCommand(.blink(on: 100, cycle: 200, count: 2), mask: .face(1), color: LEDColor.named["red"]!), at: 1000)
        #expect(timeline.color(face: 1, at: 500) == LEDColor.named["green"])
        #expect(timeline.color(face: 1, at: 1050) == LEDColor.named["red"])
        #expect(timeline.color(face: 1, at: 1150) == .off)  // dark between flashes
        #expect(timeline.color(face: 1, at: 1250) == LEDColor.named["red"])
        #expect(timeline.color(face: 1, at: 1400) == LEDColor.named["green"])  // over: back to green
    }

    @Test func aLowerPriorityCommandDuringABlinkIsDroppedNotQueued() {
        var timeline = LEDTimeline()
        timeline.apply(LEDCommand(.blink(on: 100, cycle: 200, count: 4), mask: .face(2), color: LEDColor.named["red"]!, priority: 1), at: 0)
        let taken = timeline.apply(LEDCommand(.set, mask: .face(2), color: LEDColor.named["blue"]!), at: 100)
        #expect(taken.rawValue == 0)
        #expect(timeline.color(face: 2, at: 900) == .off)  // the blue set was dropped, not applied afterwards
    }

    // MARK: Bots

    let reaction = """
        local r = rules { name = "Reaction", players = 1 }
        function r.setup(g) g.state.lit = false; timer.after(700, function(g) g.state.lit = true end) end
        function r.roll(g, p, roll) end
        r.actions = { press = function(g, p)
          if not g.state.lit then g:lose(p) else g:record("reaction", g.now - 700); g:win(p) end
        end }
        function r.bot(g, p) if g.state.lit then return "press" end return {"wait", 250} end
        return r
        """

    @Test func aBotThatWaitsLetsATimedGameBePlayedAndSimulated() throws {
        let game = try makeGame(reaction, players: ["Ann"])
        for _ in 0..<10 where !game.isOver { try game.playBotMove() }
        #expect(game.outcome == .win("Ann"))
        #expect(game.now == 750)
        #expect(game.metrics.map(\.1) == [50])
        let path = NSTemporaryDirectory() + "reaction-\(UUID().uuidString).lua"
        try reaction.write(toFile: path, atomically: true, encoding: .utf8)
        var plan = Simulation.Plan(rulesFile: path, games: 40, seed: 3)
        plan.threads = 1
        let result = try Simulation.run(plan)
        #expect(result.wins == [40] && result.unfinished == 0 && result.errors == 0)
    }

    @Test func aBotsWaitMustBeADuration() throws {
        let game = try makeGame(reaction.replacingOccurrences(of: "{\"wait\", 250}", with: "{\"wait\", -1}"), players: ["Ann"])
        expectGameError("bot's wait takes milliseconds from 0 to 86400000, e.g. {\"wait\", 500}, got -1") { try game.playBotMove() }
    }

    @Test func aBotKeepsDiceAndRollsTheRest() throws {
        let game = try makeGame("""
            local y = rules { name = "Keep", players = 1, dice = "3d6" }
            function y.roll(g, p, r) g:say("%s kept %s", tostring(r), r.kept and table.concat(r.kept, ",") or "-") end
            function y.bot(g, p) if p.last_roll then return {"roll", keep = {2}} end return "roll" end
            return y
            """, players: ["Ann"])
        try game.playBotMove()
        let first = try #require(game.events.last?.description)
        #expect(first.hasSuffix(" kept -"))
        try game.playBotMove()
        let second = try #require(game.events.last?.description)
        #expect(second.hasSuffix(" kept 2"))
        // The kept die shows the same face in the same place.
        #expect(Array(first.split(separator: " "))[2] == Array(second.split(separator: " "))[2])
    }

    // MARK: Documented behaviour: next_turn, action arguments

    @Test func nextTurnSetsCurrentAtOnceAndRunsTheTurnHookOnceAfterTheHook() throws {
        let game = try makeGame("""
            local r = rules { name = "Pass", players = 3 }
            function r.turn(g, p) g:say("turn hook for %s", p.name) end
            function r.roll(g, p, roll)
              g:next_turn()
              g:say("now %s", g.current.name)
              g:next_turn()
              g:say("then %s", g.current.name)
            end
            return r
            """, players: ["Ann", "Bob", "Cy"])
        try game.roll(values: [1])
        #expect(log(game).suffix(5) == ["roll Ann ⚀", "say now Bob", "say then Cy", "turn Cy", "say turn hook for Cy"])
    }

    @Test func actionArgumentsAreTypedAsTheyRead() throws {
        let game = try makeGame("""
            local r = rules { name = "Args", players = 1 }
            function r.roll() end
            r.actions = { show = function(g, p, ...)
              local parts = {}
              for i, v in ipairs({...}) do parts[i] = math.type(v) or type(v) end
              g:say("%s", table.concat(parts, " "))
            end }
            return r
            """, players: ["Ann"])
        let session = GameSession(game: game)
        #expect(session.run("show 25 2.5 true word -3 1e999 nan").lines == ["say integer float boolean string integer string string"])
    }

    @Test func tabCompletesTheArgumentChoicesTheRulesDeclare() throws {
        let session = GameSession(game: try Game(rulesFile: "rules/craps.lua", players: ["Ann", "Bob"], seed: 1))
        #expect(session.completions(after: "ante ") == ["5", "10", "25", "50", "100"])
        #expect(session.completions(after: "as Bob ante ") == ["5", "10", "25", "50", "100"])
        #expect(session.completions(after: "reset ").isEmpty)  // none declared: the usual words
        #expect(throws: GameError.self) {
            _ = try makeGame("local r = rules { name = 'C', players = 1 }\nfunction r.roll() end\nr.choices = { jump = {1} }\nreturn r")
        }
    }

    // MARK: Saved sessions

    @Test func saveKeepsOnlyTheInputsThatChangedTheGame() throws {
        let game = try makeGame(minimalRules)
        let session = GameSession(game: game)
        for line in ["help", "state", "fly", "roll 3", "log", "as Ann roll 2", "players", "add 2"] { _ = session.run(line) }
        let text = session.transcript(for: "saved.txt")
        #expect(text.contains("> roll 3\n"))
        #expect(text.contains("> add 2\n"))
        for left in ["> help", "> state", "> fly", "> log", "> as Ann roll 2", "> players"] { #expect(!text.contains(left), "\(left)") }
    }
}

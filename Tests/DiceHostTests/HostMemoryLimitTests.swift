import DiceHost
import Foundation
import Lua
import Testing

/// Host records (the event log, metrics) count against the game's memory limit with
/// the Lua heap: a script that says, emits, records or lights LEDs in a loop fails its
/// input with a clear error instead of growing the host without bound.
@Suite struct HostMemoryLimitTests {
    static let rules = """
        local r = rules { name = "Chatty", players = 2 }
        function r.setup(g) g.state.n = 0 end
        function r.roll(g, p, roll) g.state.n = g.state.n + 1 g:say("rolled") end
        r.actions = {
          say = function(g, p, n, size) g.state.n = g.state.n + 1 local s = string.rep("x", size) for i = 1, n do g:say(s) end end,
          emit = function(g, p, n, size) g.state.n = g.state.n + 1 local s = string.rep("y", size) for i = 1, n do g:emit("e", s) end end,
          record = function(g, p, n, size) g.state.n = g.state.n + 1 local s = string.rep("m", size) for i = 1, n do g:record(s .. i, i) end end,
          led = function(g, p, n) g.state.n = g.state.n + 1 for i = 1, n do led.set(led.ALL, "red") end end,
          mixed = function(g, p, n) g.state.n = g.state.n + 1 for i = 1, n do g:say("s%d", i) g:emit("e", i) g:record("r", i) led.off() end end,
        }
        return r
        """

    static let limit = 2 << 20

    func game() throws -> Game {
        try Game(source: Self.rules, path: "test.lua", players: ["Ann", "Bob"], seed: 1,
                 limits: LuaLimits(memoryBytes: Self.limit, instructionBudget: 50_000_000))
    }

    /// "test.lua:5: g:say: the game's memory limit of 2 MiB is reached (Lua heap 0.4 MiB, event log 1.6 MiB, metrics 0.0 MiB)".
    func expectLimit(_ error: String, line: Int, function: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let pattern = #"^test\.lua:\#(line): \#(function): the game's memory limit of 2 MiB is reached \(Lua heap \d+\.\d MiB, event log \d+\.\d MiB, metrics \d+\.\d MiB\)$"#
        #expect(error.range(of: pattern, options: .regularExpression) != nil, "\(error)", sourceLocation: sourceLocation)
    }

    func expectLimitRefused(_ game: Game, line: Int, function: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        expectRefused(game, "test.lua:\(line): \(function): the game's memory limit of 2 MiB is reached (Lua heap ", prefix: true,
                      sourceLocation: sourceLocation, body)
        do { try body() } catch { expectLimit("\(error)", line: line, function: function, sourceLocation: sourceLocation) }
    }

    @Test func sayInALoopHitsTheLimit() throws {
        let game = try game()
        try game.act("say", arguments: [10, 100])
        expectLimitRefused(game, line: 5, function: "g:say") { try game.act("say", arguments: [1_000_000, 10_000]) }
        expectLimitRefused(game, line: 5, function: "g:say") { try game.act("say", arguments: [1_000_000, 1]) }
        expectLimitRefused(game, line: 5, function: "g:say") { try game.act("say", arguments: [3, .integer(700_000)]) }
        // The failed inputs gave their records back: the game goes on.
        try game.act("say", arguments: [100, 100])
        try game.roll(values: [3])
    }

    @Test func emitRecordAndLEDsHitTheLimit() throws {
        let game = try game()
        expectLimitRefused(game, line: 6, function: "g:emit") { try game.act("emit", arguments: [1_000_000, 1000]) }
        expectLimitRefused(game, line: 7, function: "g:record") { try game.act("record", arguments: [1_000_000, 1000]) }
        expectLimitRefused(game, line: 8, function: "led.set") { try game.act("led", arguments: [1_000_000]) }
        try game.act("mixed", arguments: [10])
        #expect(game.metrics.count == 10)
    }

    @Test func theLimitCountsRecordsOfEarlierInputs() throws {
        let game = try game()
        var inputs = 0
        while true {
            do { try game.act("say", arguments: [100, 1000]) } catch {
                expectLimit("\(error)", line: 5, function: "g:say")
                break
            }
            inputs += 1
            try #require(inputs < 100, "the log never reached the limit")
        }
        #expect(inputs >= 10) // 100 kB each: most of the 2 MiB went to the log
        #expect(game.hostRecordBytes > 1 << 20 && game.hostRecordBytes < Self.limit)
    }

    @Test func undoAndRollbackKeepTheCountExact() throws {
        let game = try game()
        let start = game.hostRecordBytes
        try game.act("mixed", arguments: [50])
        let afterOne = game.hostRecordBytes
        #expect(afterOne > start)
        try game.act("mixed", arguments: [50])
        try game.undo()
        #expect(game.hostRecordBytes == afterOne)
        try game.undo()
        #expect(game.hostRecordBytes == start)
        expectLimitRefused(game, line: 5, function: "g:say") { try game.act("say", arguments: [1_000_000, 100]) }
        #expect(game.hostRecordBytes == start)
        try game.restart()
        try game.undo()
        #expect(game.hostRecordBytes == start)
    }

    @Test func aGameThatKeepsNoEventsCountsOnlyMetrics() throws {
        let game = try game()
        game.recordsEvents = false
        let kept = game.events.count
        try game.act("say", arguments: [200_000, 100]) // nothing kept, nothing counted
        #expect(game.events.count == kept)
        expectLimitRefused(game, line: 7, function: "g:record") { try game.act("record", arguments: [1_000_000, 100]) }
    }

    @Test func theStateCommandIsBoundedForAHugeState() throws {
        let source = """
            local r = rules { name = "Big", players = 2 }
            function r.setup(g)
              local big = {}
              for i = 1, 200000 do big[i] = i end
              g.state.big = big
              local words = {}
              for i = 1, 50000 do words["k" .. i] = string.rep("w", 10) end
              g.state.words = words
              g.state.long = string.rep("z", 1000000)
              local deep = {}
              for i = 1, 50 do deep = {deep, deep, deep} end
              g.state.deep = deep
              local fake = setmetatable({values = {1, 2}, flag = "ok", ok = true, total = 3}, {__tostring = function() while true do end end})
              g.state.fake = fake
              g.state.card = setmetatable({rank = 12, suit = "♥"}, {__tostring = function() return string.rep("!", 1 << 20) end})
              for _, p in ipairs(g.players) do p.hand = big end
            end
            function r.roll() end
            return r
            """
        let game = try Game(source: source, path: "test.lua", players: ["Ann", "Bob"], seed: 1,
                            limits: LuaLimits(memoryBytes: 64 << 20, instructionBudget: 50_000_000))
        let clock = ContinuousClock()
        let start = clock.now
        let lines = GameSession(game: game).describeState()
        #expect(clock.now - start < .seconds(30))
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.count < 4_000 }, "\(lines.map(\.count))")
        #expect(lines[0].contains("big={1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, … 199980 more}"), "\(lines[0].prefix(300))")
        #expect(lines[0].contains("card=Q♥"))
        #expect(lines[0].contains("fake=⚀ ⚁ = 3"))
        #expect(lines[0].contains("long=\"" + String(repeating: "z", count: 200) + "…\""))
        #expect(lines[0].contains("… 49980 more}"))
        #expect(lines[1].hasPrefix("Ann: {eliminated=false, hand={1, 2, 3,"), "\(lines[1].prefix(100))")
        // Same state, same text: the shown keys do not depend on Lua's hash order.
        #expect(GameSession(game: game).describeState() == lines)
    }

    @Test func smallStatesRenderAsBefore() throws {
        let game = try makeGame("""
            local r = rules { name = "Small", players = 2 }
            function r.setup(g)
              g.state = {point = 6, list = {"a", "b"}, [10] = true, flag = false, nested = {x = {y = {z = {w = 1}}}}}
              g.state.hand = cards.deck()
              for i = 1, 40 do g.state.hand[i] = nil end
            end
            function r.roll() end
            return r
            """)
        let lines = GameSession(game: game).describeState()
        #expect(lines == [
            "state: {[10]=true, flag=false, hand={[41]=2♣, [42]=3♣, [43]=4♣, [44]=5♣, [45]=6♣, [46]=7♣, [47]=8♣, [48]=9♣, [49]=10♣, [50]=J♣, [51]=Q♣, [52]=K♣}, list={\"a\", \"b\"}, nested={x={y={z={…}}}}, point=6}",
            "Ann: {eliminated=false}",
            "Bob: {eliminated=false}",
        ])
    }
}

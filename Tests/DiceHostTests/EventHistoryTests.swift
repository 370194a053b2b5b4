import DiceHost
import Testing

/// A served room plays for as long as people stay (issue 32): the events it keeps and the
/// undo copies must not grow with the game.
@Suite struct EventHistoryTests {
    static let source = """
        local r = rules { name = "Notes", players = {1, 2}, dice = "1d6" }
        function r.roll(g, p, roll) end
        r.anytime = { "note", "fail" }
        r.actions = {
          note = function(g, p) g:say("%s", string.rep("n", 1000)) end,
          fail = function(g, p) g:say("before the error"); error("no") end,
        }
        return r
        """

    @Test func forgottenEventsLeaveTheLastOnesNumberedOnAndFreeTheirMemory() throws {
        let game = try makeGame(Self.source, players: ["Ann"])
        for _ in 0..<50 { try game.act("note", by: "Ann") }
        let all = game.events.map(\.json)
        let bytes = game.hostRecordBytes
        game.forgetEvents(keepingLast: 5)
        #expect(game.events.count == 5)
        #expect(game.forgottenEvents == all.count - 5)
        #expect(game.events.map(\.json) == Array(all.suffix(5)))
        #expect(game.hostRecordBytes < bytes / 5)
        // An input that fails after forgetting is rolled back to the kept events.
        #expect(throws: (any Error).self) { try game.act("fail", by: "Ann") }
        #expect(game.events.map(\.json) == Array(all.suffix(5)))
        try game.act("note", by: "Ann")
        #expect(game.events.count == 6)
    }

    @Test func aGameWithoutUndoHistoryKeepsNoCopies() throws {
        let game = try makeGame(Self.source, players: ["Ann"])
        game.keepsUndoHistory = false
        try game.act("note", by: "Ann")
        #expect(!game.canUndo)
        let undoing = try makeGame(Self.source, players: ["Ann"])
        try undoing.act("note", by: "Ann")
        #expect(undoing.canUndo)
    }
}

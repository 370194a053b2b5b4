import DiceHost
import Foundation
import Lua
import Testing

/// Lines written before quoting existed (format 1 logs, a server store's text rows) read
/// as they did then; what the REPL writes now reads back as the same input.
@Suite struct LinesBeforeQuotesTests {
    func typedGame(players: [String] = ["Ann"]) throws -> Game {
        try Game(rulesFile: "examples/rules/typed-arguments.lua", players: players, seed: 1)
    }

    @Test func aQuoteInALineFromBeforeQuotingIsAnOrdinaryCharacter() throws {
        let session = GameSession(game: try typedGame())
        #expect(session.run(#"call "hi" "x"#, quotes: false).lines == [#"say Ann called with string "\"hi\"", string "\"x""#])
        #expect(session.run(#"call "hi""#).lines == [#"say Ann called with string "hi""#])
        #expect(try GameInputLine.words(#"as "Bo" roll"#, quotes: false).map(\.text) == ["as", #""Bo""#, "roll"])
    }

    @Test func aFormatOneEntryReplaysItsQuotesAsTheyWereRead() throws {
        let game = try typedGame()
        var lines: [String] = []
        let recorder = GameLogRecorder { lines.append($0); return nil }
        recorder.begin(game)
        let session = GameSession(game: game)
        let outcome = GameLog.perform(#"call "hi""#, in: session, quotes: false)
        let entry = GameLog.Entry(n: 1, input: #"call "hi""#, t: outcome.time, events: outcome.events.map(GameLog.json), error: outcome.error)
        #expect(entry.commandBeforeQuotes)
        let header = lines[0].replacingOccurrences(of: "\"dicehost_log\":2", with: "\"dicehost_log\":1")
        let text = header + "\n" + GameLog.line(entry).replacingOccurrences(of: "{\"command\":", with: "{\"input\":")
        let report = GameReplay.run(try GameLog.parse(text))
        #expect(report.matched, "\(report.lines)")
    }

    @Test func anArgumentStartingWithACombiningMarkIsQuotedAndReadsBack() throws {
        #expect(GameInputLine.needsQuotes("\u{301}x"))
        let input = GameInput(.action(name: "call", arguments: [.string("\u{301}x")]))
        let session = GameSession(game: try typedGame())
        #expect(session.run(input.line).lines == ["say Ann called with string \"\u{301}x\""], "\(input.line)")
    }

    @Test func aBotMoveTypedAtTheREPLIsLoggedAsTheCommandAndUndoReplays() throws {
        let game = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 3)
        var lines: [String] = []
        let recorder = GameLogRecorder { lines.append($0); return nil }
        recorder.begin(game)
        let session = GameSession(game: game)
        for line in ["roll 3", "bot", "undo"] { _ = recorder.run(line, in: session) }
        #expect(lines.contains { $0.contains(#""command":"bot""#) }, "\(lines)")
        let report = GameReplay.run(try GameLog.parse(lines.joined(separator: "\n")))
        #expect(report.matched, "\(report.lines)")
    }

    @Test func aWholeNumberOutside64BitsIsRefusedWhenTypesAreKept() throws {
        #expect(throws: (any Error).self) { try JSONValue(parsing: "-9223372036854775809", keepingFractions: true) }
        #expect(throws: (any Error).self) { try JSONValue(parsing: "18446744073709551616", keepingFractions: true) }
        #expect(try JSONValue(parsing: "18446744073709551615", keepingFractions: true) == .unsigned(18446744073709551615))
    }
}

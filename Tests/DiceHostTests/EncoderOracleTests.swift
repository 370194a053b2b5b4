@testable import DiceHost
import Foundation
import Lua
import Testing

/// Issue 32: the view and table encoders read what a hook returned straight off the Lua
/// stack. Byte identity is their contract: the same JSON text (and the same error, naming
/// the same field) as the encoders that read through `LuaValue`s wrote. The expected
/// outputs were written by those encoders into EncoderFixtures/*.jsonl (one `[case, text]`
/// per line): values of every shape a view or a table takes, made from seeds by
/// EncoderFixtures/oracle.lua, and every seat's look over played games of the shipped
/// rules. The first two depend only on oracle.lua and are never written again; a change to
/// a shipped game's rules changes its looks: `DICEHOST_RECORD_ENCODER_FIXTURES=shipped-games.jsonl
/// swift test --filter EncoderOracle` writes that one file again and fails the run, so a
/// re-recording is always a reviewed diff, never a silent pass.
@Suite struct EncoderOracleTests {
    static let folder = "Tests/DiceHostTests/EncoderFixtures/"
    static let casesPerEncoder = 2_000
    static let movesPerGame = 20

    static func oracleGame() throws -> Game {
        try Game(rulesFile: folder + "oracle.lua", players: ["Ann", "Bob"], seed: 1,
                 limits: LuaLimits(memoryBytes: 256 << 20, instructionBudget: nil))
    }

    static func views() throws -> [[String]] {
        let game = try oracleGame()
        let make = game.lua.get(game.rulesTable, "oracle_view")
        var cases: [[String]] = []
        for n in 1...casesPerEncoder {
            let value = try game.lua.call(make, [.integer(Int64(n))]).first ?? .nil
            var textEncoder = ViewEncoder(lua: game.lua)
            var valueEncoder = ViewEncoder(lua: game.lua)
            add(&cases, "view \(n)", textEncoder.encodeText(value), valueEncoder.encode(value).description)
        }
        return cases
    }

    static func tables() throws -> [[String]] {
        let game = try oracleGame()
        let make = game.lua.get(game.rulesTable, "oracle_table")
        let encoder = TableEncoder(lua: game.lua, location: "oracle.lua:1")
        var cases: [[String]] = []
        for n in 1...casesPerEncoder {
            let value = try game.lua.call(make, [.integer(Int64(n))]).first ?? .nil
            add(&cases, "table \(n)", outcome { try encoder.encodeText(value) }, outcome { try encoder.encode(value).description })
        }
        return cases
    }

    static func shippedGames() throws -> [[String]] {
        let files = try FileManager.default.contentsOfDirectory(atPath: "rules").filter { $0.hasSuffix(".lua") }.sorted()
        #expect(files.count >= 7)
        var cases: [[String]] = []
        for file in files {
            let rules = try Game.check(rulesFile: "rules/" + file)
            let players = Array(["Ann", "Bob", "Cy", "Dee"].prefix(max(rules.minPlayers, min(rules.maxPlayers, 4))))
            let game = try Game(rulesFile: "rules/" + file, players: players, seed: 7)
            for move in 0...movesPerGame {
                let viewers: [String?] = players + [nil]
                for (viewer, look) in zip(viewers, game.viewsAndTablesText(for: viewers)) {
                    let name = "\(file) move \(move) \(viewer ?? "spectator")"
                    cases.append([name + " view", condensed(outcome { try look.view.get() })])
                    if let table = look.table { cases.append([name + " table", condensed(outcome { try table.get() })]) }
                }
                if game.isOver { break }
                try game.playBotMove()
            }
        }
        return cases
    }

    /// A case written as text and as a value (whose `description` is the same text: the
    /// value's line is kept only where it is not).
    static func add(_ cases: inout [[String]], _ name: String, _ text: String, _ value: String) {
        cases.append([name, condensed(text)])
        if value != text { cases.append([name + " as a value", condensed(value)]) }
    }

    /// A long output as its length, its start and a 64-bit FNV-1a hash of its bytes: the
    /// fixture stays small enough to read, and a changed byte still shows.
    static func condensed(_ text: String) -> String {
        guard text.utf8.count > 1_000 else { return text }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "\(text.utf8.count) bytes, FNV-1a \(String(hash, radix: 16)): " + String(text.prefix(120))
    }

    static func outcome(_ body: () throws -> String) -> String {
        do { return try body() } catch { return "error: \(error)" }
    }

    /// Compares `cases` with the fixture `name`, or writes it when asked to.
    static func expectFixture(_ name: String, _ cases: [[String]], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = folder + name
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        if ProcessInfo.processInfo.environment["DICEHOST_RECORD_ENCODER_FIXTURES"] == name {
            var data = Data()
            for item in cases {
                data.append(try encoder.encode(item))
                data.append(UInt8(ascii: "\n"))
            }
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            Issue.record("\(name) written again from today's encoders: review its diff (git diff \(path)), then run without DICEHOST_RECORD_ENCODER_FIXTURES", sourceLocation: sourceLocation)
            return
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let expected = try lines.map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) }
        #expect(expected.count == cases.count, sourceLocation: sourceLocation)
        var mismatches = 0
        for (want, got) in zip(expected, cases) where want != got {
            mismatches += 1
            if mismatches <= 5 {
                Issue.record("\(want[0]): expected \(want.last?.prefix(600) ?? "")\ngot \(got.last?.prefix(600) ?? "") (case \(got[0]))", sourceLocation: sourceLocation)
            }
        }
        #expect(mismatches == 0, "\(mismatches) cases differ", sourceLocation: sourceLocation)
    }

    @Test func viewsOfEveryShapeAreWrittenByteForByteAsBefore() throws {
        try Self.expectFixture("views.jsonl", try Self.views())
    }

    @Test func tablesOfEveryShapeAndMistakeAreWrittenOrRefusedByteForByteAsBefore() throws {
        try Self.expectFixture("tables.jsonl", try Self.tables())
    }

    @Test func everySeatsLookAtTheShippedGamesIsWrittenByteForByteAsBefore() throws {
        try Self.expectFixture("shipped-games.jsonl", try Self.shippedGames())
    }
}

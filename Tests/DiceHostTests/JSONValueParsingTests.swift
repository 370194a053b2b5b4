import DiceHost
import Foundation
import Testing

/// `JSONValue(parsing:)` reads JSON without Foundation (every client message and room log
/// line of a server goes through it): strict RFC 8259, and the values `JSONDecoder` gave.
@Suite struct JSONValueParsingTests {
    static let samples = [
        #"{"type":"action","seq":12,"name":"bid","arguments":[3,5,"x"],"ok":true,"none":null}"#,
        #"[0,-0,1,-1,9223372036854775807,-9223372036854775808,9223372036854775808,18446744073709551615,18446744073709551616]"#,
        #"[0.5,1.0,1e2,-2.5E-3,1.5e300,123456789.125]"#,
        #"{"s":"a\"b\\c\/d\n\t\r\b\f\u0001\u00e9\ud83d\ude00 ⚂ é","":""}"#,
        #"  {"nested":{"a":[{"b":[[]]},{}]},"dup":1,"dup":2}  "#,
        #""just a string""#, "true", "null", "42",
    ]

    @Test func valuesAreWhatJSONDecoderRead() throws {
        for text in Self.samples {
            let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            let parsed = try JSONValue(parsing: text)
            #expect(parsed == decoded, "\(text): \(parsed) vs \(decoded)")
        }
    }

    @Test func wholeNumbersWithAFractionOrExponentAreIntegers() throws {
        #expect(try JSONValue(parsing: "[3.0,1e2,0.5,-4.00,1e19,1e20]")
                == .array([.integer(3), .integer(100), .number(0.5), .integer(-4), .unsigned(10_000_000_000_000_000_000), .number(1e20)]))
    }

    @Test func lenienciesAndBrokenTextAreRefusedSayingWhere() {
        let refused: [(String, Int)] = [
            ("[1,2,]", 5), ("{\"a\":1,}", 7), ("// c\n{}", 0), ("{a:1}", 1), ("[01]", 2), ("[1.]", 3), ("\"\\x\"", 2),
            ("\"tab\there\"", 4), ("[1] [2]", 4), ("\"\\ud83d\"", 7), ("\"\\ude00\"", 1), ("nul", 3), ("", 0), ("\"open", 5),
        ]
        for (text, offset) in refused {
            #expect(throws: JSONValue.ParseError.self, "\(text)") { try JSONValue(parsing: text) }
            do { _ = try JSONValue(parsing: text) } catch let error as JSONValue.ParseError {
                #expect(error.offset == offset, "\(text): \(error)")
            } catch {}
        }
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: deep, maxDepth: 32) }
        #expect(try JSONValue(parsing: deep, maxDepth: 64) != .null)
    }

    /// A log entry's line is written without JSONEncoder, byte for byte what it wrote.
    @Test func aLogEntryLineIsJSONEncodersBytes() throws {
        // What the entry holds, as a Codable struct JSONEncoder writes (the input as JSON).
        struct Mirror: Encodable { var n: Int; var command: String?; var input: JSONValue?; var t: Int; var events: [JSONValue]; var error: String? }
        func throughEncoder(_ entry: GameLog.Entry) -> String {
            GameLog.line(Mirror(n: entry.n, command: entry.command, input: entry.input?.jsonValue, t: entry.t, events: entry.events, error: entry.error))
        }
        let events: [JSONValue] = [.object(["t": .integer(5), "type": .string("say"), "text": .string("a/b \"c\" é\n")])]
        for entry in [GameLog.Entry(n: 3, input: "as Ann roll 3 4", t: 1500, events: events, error: nil),
                      GameLog.Entry(n: 1, input: nil, bot: true, t: 0, events: [], error: "no \"such\" thing"),
                      GameLog.Entry(n: 2, input: GameInput(.roll(.values([3, 4])), seat: "Ann"), t: 9, events: events, error: nil)] {
            #expect(GameLog.line(entry) == throughEncoder(entry))
        }
    }
}

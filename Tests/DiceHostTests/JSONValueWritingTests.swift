import DiceHost
import Foundation
import Testing

/// `JSONValue.description` is written by hand (a server writes one per seat per input);
/// it must stay what JSONEncoder with sorted keys wrote, byte for byte, so room logs,
/// game logs and the protocol do not change.
@Suite struct JSONValueWritingTests {
    static func encoded(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func theWrittenFormIsJSONEncodersWithSortedKeys() throws {
        let text = "a\"b\\c/d\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f}é😀\u{2028} ⚂"
        let values: [JSONValue] = [
            .null, .bool(true), .bool(false), .integer(-42), .integer(.max), .integer(.min), .unsigned(.max),
            .number(0.5), .number(1.0), .number(1e20), .number(-0.0), .number(1.5e-7), .number(123456789.125),
            .string(""), .string(text), .array([]), .object([:]),
            .object(["b": .integer(1), "B": .integer(2), "a10": .integer(3), "a2": .integer(4), "é": .null, "_x": .string(text),
                     text: .array([.integer(1), .object(["kind": .string("hidden"), "what": .string("dice"), "count": .integer(5)])])]),
            .array([.string("x"), .array([.null, .bool(false)]), .object(["z": .number(0.25), "10": .integer(9), "9": .integer(10)])]),
        ]
        for value in values {
            #expect(value.description == (try Self.encoded(value)))
        }
    }

    @Test func aListOfEventsIsTheLineJSONEncoderWrote() throws {
        let events = [GameEvent(time: 5, kind: .say("a\"b\n⚂")), GameEvent(time: 9, kind: .turn(player: "Ann"), audience: ["Ann"])].map(GameLog.json)
        func throughEncoder<T: Encodable>(_ value: T) -> String { GameLog.line(value) }
        #expect(GameLog.line(events) == throughEncoder(events))
        #expect(GameLog.line([JSONValue]()) == "[]")
    }

    @Test func aNonFiniteNumberIsNull() {
        #expect(JSONValue.array([.integer(1), .number(.nan), .number(.infinity)]).description == "[1,null,null]")
    }
}

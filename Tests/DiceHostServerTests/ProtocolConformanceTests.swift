import Foundation
import Testing

/// docs/protocol.md against what the server sends: the JSON examples of the server's
/// messages, events and state are read out of the document, and every message a scripted
/// session receives must match one of its type's examples - the same keys, each value of
/// the same kind (a whole number is not `20.0`) - and every documented message type must
/// come up in the session. A client written from the document reads what is sent.
@Suite struct ProtocolConformanceTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/protocol.md")

    /// Two seats, secret rolls (hidden rolls and `to`), a win on the second roll (so a
    /// restart), a message to one player and a reveal.
    static let rules = """
        local r = rules { name = "Secret", players = {2, 2}, dice = "1d6", secret_rolls = true }
        function r.roll(g, p, roll)
          g.state.rolls = (g.state.rolls or 0) + 1
          g:tell(p, "you rolled %d", roll.total)
          g:say("%s rolled", p.name)
          if g.state.rolls == 2 then g:reveal(p, roll); g:win(p) else g:next_turn() end
        end
        return r
        """

    @Test func everyMessageTheServerSendsIsAsTheDocumentShowsIt() async throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let messages = try Self.examples(in: Self.section(of: text, from: "## Server → client", to: "### Per-seat messages"), starting: "{\"type\":")
        let events = try Self.examples(in: text, starting: "{\"t\":")
        let stateBlock = try #require(text.range(of: "```json\n").flatMap { start in
            text.range(of: "\n```", range: start.upperBound..<text.endIndex).map { String(text[start.upperBound..<$0.lowerBound]) }
        })
        let state = try Shape.parse(Self.placeholdersFilled(stateBlock))
        let hiddenLastRoll = try Shape.parse(#require(text.components(separatedBy: "`").first { $0.hasPrefix("{\"player\":\"Bob\",\"hidden\":true") }))
        let playAgainClock = try Shape.parse(#require(text.components(separatedBy: "`").first { $0.hasPrefix("{\"player\":null,\"deadline\"") }))
        #expect(messages.count >= 15 && events.count >= 3, "examples read: \(messages.count) messages, \(events.count) events")

        let received = try await Self.session()
        var seenTypes = Set<String>()
        for raw in received {
            let message = try Shape.parse(raw)
            guard case .object(let fields) = message, case .string(let type)? = fields["type"] else {
                Issue.record("not an object with a type: \(raw)"); continue
            }
            seenTypes.insert(type)
            let candidates = messages.filter { $0.type == type }
            #expect(!candidates.isEmpty, "the document shows no \(type) message: \(raw)")
            if !candidates.isEmpty {
                #expect(candidates.contains { $0.shape.matches(message) }, "\(raw)\nmatches none of\n\(candidates.map(\.text).joined(separator: "\n"))")
            }
            if case .array(let list)? = fields["events"] {
                for case .object(var event) in list {
                    guard case .string(let eventType)? = event["type"] else { Issue.record("an event without a type in \(raw)"); continue }
                    event["to"] = nil // "an event addressed to some players only adds to"
                    let documented = events.filter { $0.type == eventType }
                    guard !documented.isEmpty else { continue } // documented by its fields only
                    #expect(documented.contains { $0.shape.matches(.object(event)) }, "event \(event) of \(raw)")
                }
            }
            // STATE: its fields are there or not by phase and rules (the prose says which), so
            // each field sent must be one the example shows, of its kind.
            if case .object(let sent)? = fields["state"], case .object(let shown) = state {
                for (key, value) in sent where !["viewer", "view"].contains(key) {
                    guard let example = shown[key] else { Issue.record("state field \(key) is not in the document: \(raw)"); continue }
                    let alternatives = [example] + (key == "lastRoll" ? [hiddenLastRoll] : []) + (key == "nextTimer" ? [.null] : [])
                        + (key == "turnClock" ? [playAgainClock] : [])
                    #expect(alternatives.contains { $0.contains(value) }, "state field \(key): \(value) is not like \(example)")
                }
            }
        }
        // `reloaded`: --watch only; `abandoned`: a game a seat blocks only (AbsentPlayerTests).
        let documentedTypes = Set(messages.map(\.type)).subtracting(["reloaded", "abandoned"])
        #expect(documentedTypes.subtracting(seenTypes).isEmpty, "never sent in the session: \(documentedTypes.subtracting(seenTypes).sorted())")
    }

    @Test func aJoinWithANameAndATokenIsRefusedNotReadAsTheToken() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let room = try await server.twoPlayerRoom("race.lua")
        let other = try await server.client()
        try await other.hello()
        other.send(["type": "join", "room": room.room, "name": "Cy", "token": try #require(room.annJoined["token"] as? String)])
        let error = try #require(await other.next())
        #expect(error["type"] as? String == "error" && error["code"] as? String == "bad-field", "\(error)")
    }

    @Test func afterARestartAComerSeesOnlyTheNewGameAndNoOldLastRoll() async throws {
        let folder = try Self.temporaryFolder()
        try Self.rules.write(toFile: folder + "/secret.lua", atomically: true, encoding: .utf8)
        let server = try await TestServer.start(rules: folder)
        defer { server.stop() }
        let room = try await server.twoPlayerRoom("secret.lua")
        room.ann.send(["type": "roll", "seq": 1])
        _ = try #require(await room.ann.next("ack"))
        room.bob.send(["type": "roll", "seq": 1])
        _ = try #require(await room.bob.next("ack"))
        // Another game once both are ready (`restart` is `ready`'s old name).
        room.bob.send(["type": "ready", "seq": 2])
        _ = try #require(await room.bob.next("ack"))
        room.ann.send(["type": "restart", "seq": 2])
        _ = try #require(await room.ann.next("ack"))
        let restarted = try #require(await room.ann.next("events"))
        let firstOfNewGame = try #require(restarted["first"] as? Int)
        #expect(firstOfNewGame > 0, "numbering goes on across the restart")
        let eve = try await server.client()
        try await eve.hello()
        eve.send(["type": "watch", "room": room.room])
        let state = try #require(await eve.next("state"))
        #expect(state["first"] as? Int == firstOfNewGame)
        let events = try #require(state["events"] as? [[String: Any]])
        #expect(events.first?["type"] as? String == "start")
        #expect(!events.contains { $0["type"] as? String == "roll" || $0["type"] as? String == "win" }, "\(events)")
        #expect((state["state"] as? [String: Any])?["lastRoll"] == nil)
    }

    // MARK: The session

    /// Every message three clients receive in a game of `rules` and its restart.
    static func session() async throws -> [String] {
        let folder = try temporaryFolder()
        try rules.write(toFile: folder + "/secret.lua", atomically: true, encoding: .utf8)
        let server = try await TestServer.start(rules: folder)
        defer { server.stop() }
        let ann = try await server.client(), bob = try await server.client(), eve = try await server.client()
        for client in [ann, eve] { try await client.hello() }
        try await bob.hello(version: 2) // its inputs are acknowledged in its events messages
        ann.send(["type": "rules"])
        _ = try #require(await ann.next("rules"))
        ann.send("{\"type\":\"ping\",\"id\":1}")
        ann.send("{\"type\":\"ping\"}")
        _ = try #require(await ann.next("pong"))
        _ = try #require(await ann.next("pong"))
        ann.send("{")
        _ = try #require(await ann.next("error"))
        ann.send(["type": "roll", "seq": 1])
        _ = try #require(await ann.next("error")) // not in a room: seq, no room
        ann.send(["type": "create", "rules": "secret.lua", "room": "conf"])
        _ = try #require(await ann.next("created"))
        ann.send(["type": "rooms"])
        _ = try #require(await ann.next("rooms"))
        ann.send(["type": "join", "room": "conf", "name": "Ann"])
        let token = try #require(await ann.next("joined")?["token"] as? String)
        eve.send(["type": "watch", "room": "conf"])
        _ = try #require(await eve.next("watching"))
        bob.send(["type": "join", "room": "conf", "name": "Bob"])
        _ = try #require(await bob.next("joined"))
        _ = try #require(await ann.next("events"))
        ann.send(["type": "roll", "seq": 1])
        _ = try #require(await ann.next("ack"))
        ann.send(["type": "roll", "seq": 1])
        _ = try #require(await ann.next("ack"))
        ann.send(["type": "roll", "seq": 2])
        _ = try #require(await ann.next("error")) // not your turn: room and seq
        eve.send(["type": "join", "room": "conf", "name": "Cy"])
        _ = try #require(await eve.next("error")) // room-full: room, no seq
        bob.send(["type": "roll", "seq": 1])
        var acked: [String: Any]?
        while acked == nil, let events = await bob.next("events") { if events["ack"] != nil { acked = events } }
        #expect(acked?["ack"] as? Int == 1)
        ann.send(["type": "restart", "seq": 3])
        _ = try #require(await ann.next("ack"))
        bob.send(["type": "ready", "seq": 2])
        _ = try #require(await bob.next("events"))
        bob.send(["type": "leave"])
        _ = try #require(await bob.next("left"))
        let back = try await server.client()
        try await back.hello()
        back.send(["type": "join", "room": "conf", "token": token])
        _ = try #require(await back.next("joined"))
        _ = try #require(await back.next("state"))
        var texts: [String] = []
        for client in [ann, bob, eve, back] {
            _ = await client.drain(for: .milliseconds(300))
            texts += client.receivedTexts
        }
        return texts
    }

    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dicehost-conformance-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    // MARK: Reading the document

    struct Example {
        var text: String
        var type: String
        var shape: Shape
    }

    static func section(of text: String, from start: String, to end: String) throws -> String {
        let from = try #require(text.range(of: start))
        let to = try #require(text.range(of: end, range: from.upperBound..<text.endIndex))
        return String(text[from.upperBound..<to.lowerBound])
    }

    /// The code spans of `text` that begin with `prefix`, read with their placeholders filled.
    static func examples(in text: String, starting prefix: String) throws -> [Example] {
        var out: [Example] = []
        for span in text.components(separatedBy: "`").enumerated() where span.offset % 2 == 1 && span.element.hasPrefix(prefix) {
            let shape = try Shape.parse(placeholdersFilled(span.element))
            guard case .object(let fields) = shape, case .string(let type)? = fields["type"] else { continue }
            out.append(Example(text: span.element, type: type, shape: shape))
        }
        return out
    }

    /// The document's placeholders as JSON: `[RULES…]` and `[EVENT…]` an empty list (any
    /// list), `STATE` and `CAUSE` an empty object (any object), `N`, `F` and a bare `…` any value.
    static func placeholdersFilled(_ example: String) -> String {
        var out = "", word = "", inString = false, escaped = false
        func flushWord() {
            guard !word.isEmpty else { return }
            out += ["STATE", "CAUSE"].contains(word) ? "{}" : ["true", "false", "null"].contains(word) ? word : Shape.anyText
            word = ""
        }
        var characters = Array(example)[...]
        while let c = characters.popFirst() {
            if inString {
                out.append(c)
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            if c.isLetter { word.append(c); continue }
            if c == "…" {
                if word.isEmpty { out += Shape.anyText } else { word = "" } // RULES… inside a list: nothing
                continue
            }
            flushWord()
            if c == "\"" { inString = true }
            out.append(c)
        }
        flushWord()
        return out
    }
}

/// A JSON value's shape: what kind each value is, read from the text (so `20` and `20.0`
/// differ), with `any` for a placeholder of the document.
indirect enum Shape: Equatable, CustomStringConvertible {
    case object([String: Shape]), array([Shape]), string(String), integer, fraction, bool, null, any

    static let anyText = "\"\u{1}any\""

    var description: String {
        switch self {
        case .object(let fields): return "{" + fields.keys.sorted().map { "\($0):\(fields[$0]!)" }.joined(separator: ",") + "}"
        case .array(let items): return "[" + items.map(\.description).joined(separator: ",") + "]"
        case .string: return "string"
        case .integer: return "integer"
        case .fraction: return "fraction"
        case .bool: return "bool"
        case .null: return "null"
        case .any: return "any"
        }
    }

    /// Whether `sent` is like this example: an object with the same keys, each like the
    /// example's; a list like the example's first item (an empty example list: any list);
    /// `{}` in the example any object.
    func matches(_ sent: Shape) -> Bool {
        switch (self, sent) {
        case (.any, _): return true
        case (.object(let a), .object(let b)):
            if a.isEmpty { return true }
            return Set(a.keys) == Set(b.keys) && a.allSatisfy { key, value in b[key].map(value.matches) ?? false }
        case (.array(let a), .array(let b)):
            guard let example = a.first else { return true }
            return b.allSatisfy(example.matches)
        case (.string, .string), (.integer, .integer), (.fraction, .fraction), (.bool, .bool), (.null, .null): return true
        default: return false
        }
    }

    /// Whether `sent` is within this example: an object whose keys are among the
    /// example's, each within the example's value; a list whose items are within its first.
    func contains(_ sent: Shape) -> Bool {
        switch (self, sent) {
        case (.object(let a), .object(let b)):
            return b.allSatisfy { key, value in a[key].map { $0.contains(value) } ?? false }
        case (.array(let a), .array(let b)):
            guard let example = a.first else { return true }
            return b.allSatisfy(example.contains)
        default: return matches(sent)
        }
    }

    static func parse(_ text: String) throws -> Shape {
        var reader = Reader(bytes: Array(text.utf8))
        let shape = try reader.value()
        reader.skipSpace()
        guard reader.position == reader.bytes.count else { throw TestFailure("trailing text in \(text)") }
        return shape
    }

    struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func skipSpace() { while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 } }

        mutating func value() throws -> Shape {
            skipSpace()
            guard position < bytes.count else { throw TestFailure("JSON ends early") }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                var fields: [String: Shape] = [:]
                skipSpace()
                if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(fields) }
                while true {
                    skipSpace()
                    guard case .string(let key) = try value() else { throw TestFailure("a key that is not a string at \(position)") }
                    skipSpace()
                    guard bytes[position] == UInt8(ascii: ":") else { throw TestFailure("':' expected at \(position) in \(String(decoding: bytes, as: UTF8.self))") }
                    position += 1
                    fields[key] = try value()
                    skipSpace()
                    position += 1
                    if bytes[position - 1] == UInt8(ascii: "}") { return .object(fields) }
                }
            case UInt8(ascii: "["):
                position += 1
                var items: [Shape] = []
                skipSpace()
                if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
                while true {
                    items.append(try value())
                    skipSpace()
                    position += 1
                    if bytes[position - 1] == UInt8(ascii: "]") { return .array(items) }
                }
            case UInt8(ascii: "\""):
                let start = position + 1
                position += 1
                while bytes[position] != UInt8(ascii: "\"") { position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1 }
                position += 1
                let text = String(decoding: bytes[start..<(position - 1)], as: UTF8.self)
                return "\"\(text)\"" == Shape.anyText ? .any : .string(text)
            case UInt8(ascii: "t"): position += 4; return .bool
            case UInt8(ascii: "f"): position += 5; return .bool
            case UInt8(ascii: "n"): position += 4; return .null
            default:
                var fraction = false
                while position < bytes.count, "-+0123456789.eE".utf8.contains(bytes[position]) {
                    if ".eE".utf8.contains(bytes[position]) { fraction = true }
                    position += 1
                }
                return fraction ? .fraction : .integer
            }
        }
    }
}

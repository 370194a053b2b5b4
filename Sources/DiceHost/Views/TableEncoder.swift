import Lua

/// Checks what a `table(v, t)` hook returned against the table's vocabulary and turns it
/// into JSON a front end draws (docs/scripting.md, "The table"):
///
///     headline  "Cal bid four 3s - your move"        last   "Bob called liar: ..."
///     result    "You finish $20 down" (the game's end in this seat's words)
///     roll      "Roll your cup" (the Roll button's label), or false: no roll is taken now
///     turn      "Your turn"                          countdown {text = "Bob flips for you", ms = 4000}
///     track     {target = 25, label = "Race to space", marks = {{name = "Ann", at = 12}, ...}}
///     pot       "$15" (or {label = "Ante", value = "$5"})
///     balances  {{name = "Ann", value = "$205", note = "ante $5"}, ...}
///     cups      {{name = "Ann", dice = a roll | hidden("dice", 5) | {3, 5}, note = ...,
///                 counted = {5}, wild = {1}}, ...}  (the faces lit at a reveal; optional)
///     cards     {{name = "Ann", open = a card | {cards}, facedown = 12 | hidden("cards", 12)}, ...}
///
/// Anything else is an error naming the field and what was expected; no script code runs
/// (raw reads only) and sizes are capped: texts are cut at `charactersPerText`, lists
/// hold at most `rowsPerList` rows, `itemsPerRow` dice or cards.
///
/// The table is read where it lies on the Lua stack (`LuaStackReader`): no `LuaValue`,
/// registry reference or Swift `String` per value read (they were most of what
/// a served table cost).
struct TableEncoder {
    static let charactersPerText = 300
    static let rowsPerList = 16
    static let itemsPerRow = 60
    static let fields = ["headline", "result", "last", "turn", "roll", "countdown", "track", "pot", "balances", "cups", "cards"]

    let lua: LuaState
    let location: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func fail(_ path: String, _ expected: String, _ got: LuaValue) -> Failure {
        fail(path, expected, typeName: got.typeName)
    }

    func fail(_ path: String, _ expected: String, _ got: LuaSlot) -> Failure {
        fail(path, expected, typeName: got.typeName)
    }

    private func fail(_ path: String, _ expected: String, typeName: String) -> Failure {
        Failure(description: "\(location): table(v, t) returned \(path) = \(typeName): \(expected) expected")
    }

    /// The table as a `JSONValue` (what `Game.table(for:)` returns).
    func encode(_ value: LuaValue) throws -> JSONValue {
        var tree = JSONTree()
        try encode(value, into: &tree)
        return tree.value
    }

    /// The table as JSON text (what a server sends), the same as the `JSONValue`'s
    /// `description`, written without making the value.
    func encodeText(_ value: LuaValue) throws -> String {
        var bytes = JSONBytes()
        try encode(value, into: &bytes)
        return bytes.text
    }

    /// The table's fields, in their sorted (and `pairs`) order.
    enum Field: Int, CaseIterable {
        case balances, cards, countdown, cups, headline, last, pot, result, roll, track, turn

        var name: StaticString {
            switch self {
            case .balances: return "balances"
            case .cards: return "cards"
            case .countdown: return "countdown"
            case .cups: return "cups"
            case .headline: return "headline"
            case .last: return "last"
            case .pot: return "pot"
            case .result: return "result"
            case .roll: return "roll"
            case .track: return "track"
            case .turn: return "turn"
            }
        }

        /// The name as a `String`, for keys and paths.
        var key: String { Self.keys[rawValue] }
        private static let keys = allCases.map { "\($0.name)" }

        /// The field a key's bytes name, nil for none.
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let field = Self.allCases.first(where: { bytes.holds($0.name) }) else { return nil }
            self = field
        }

        init?(_ name: String) {
            guard let field = Self.allCases.first(where: { $0.key == name }) else { return nil }
            self = field
        }
    }

    /// Checks and writes the table. Fields are checked in the order of the old tree-making
    /// encoder (so the same mistake is named first) and written with their keys sorted:
    /// a row's texts and counts are read first, then its fields written in key order.
    /// Paths in errors are made only when an error is raised.
    func encode<Output: JSONOutput>(_ value: LuaValue, into out: inout Output) throws {
        guard case .table = value else { throw fail("a value", "a table (headline, turn, ...)", value) }
        try lua.reading(value) { reader, t in try encode(t, reader, into: &out) }
    }

    private func encode<Output: JSONOutput>(_ t: LuaSlot, _ reader: LuaStackReader, into out: inout Output) throws {
        // The entries, counted and charged before any is looked at (a table of a million keys
        // costs one bounded pass); the known names noted, each a bit in sorted order.
        var count = 0
        var present: UInt16 = 0
        var allKnown = true
        reader.forEach(t) { key, _ in
            count += 1
            guard allKnown else { return }
            if let bytes = key.stringBytes, let field = Field(bytes) { present |= 1 << field.rawValue } else { allKnown = false }
        }
        try lua.charge(count)
        guard count <= Self.fields.count else {
            throw Failure(description: "\(location): table(v, t) returned the table with \(count) entries: at most \(Self.fields.count) expected")
        }
        out.beginObject()
        if allKnown {
            // Known names only, ASCII: their `pairs` order is their sorted order.
            for field in Field.allCases where present & (1 << field.rawValue) != 0 {
                try reader.restoring { try write(field, reader.field(t, field.name), reader, &out) }
            }
        } else {
            try reader.withKeys(t) { keys in
                for key in keys {
                    guard case .string(let name) = key.value, let field = Field(name) else {
                        throw Failure(description: "\(location): table(v, t) returned an unknown field '\(key.value.description.prefix(40))' (the table knows \(Self.fields.joined(separator: ", ")))")
                    }
                    try reader.restoring { try write(field, reader.field(t, key: key.slot), reader, &out) }
                }
            }
        }
        out.endObject()
    }

    private func write<Output: JSONOutput>(_ field: Field, _ v: LuaSlot, _ reader: LuaStackReader, _ out: inout Output) throws {
        out.key(field.key)
        switch field {
        case .headline, .result, .last, .turn: try text(v, field.key).write(&out)
        case .roll: try rollButton(v, &out)
        case .countdown: try countdown(v, reader, &out)
        case .track: try track(v, reader, &out)
        case .pot: try pot(v, reader, &out)
        case .balances: try rows(v, "balances", reader, &out) { row, path, out in
            let label = try text(reader.field(row, "name"), path.field("name"))
            let value = try amount(reader.field(row, "value"), path.field("value"))
            let note = try optionalText(reader.field(row, "note"), path.field("note"))
            out.key("name"); label.write(&out)
            if let note { out.key("note"); note.write(&out) }
            out.key("value"); value.write(&out)
        }
        case .cups: try rows(v, "cups", reader, &out) { row, path, out in
            let label = try text(reader.field(row, "name"), path.field("name"))
            let counted = try faces(reader.field(row, "counted"), path.field("counted"), reader)
            let wild = try faces(reader.field(row, "wild"), path.field("wild"), reader)
            if let counted { out.key("counted"); writeFaces(counted, &out) }
            out.key("dice"); try dice(reader.field(row, "dice"), path.field("dice"), reader, &out)
            let note = try optionalText(reader.field(row, "note"), path.field("note"))
            out.key("name"); label.write(&out)
            if let note { out.key("note"); note.write(&out) }
            if let wild { out.key("wild"); writeFaces(wild, &out) }
        }
        case .cards: try rows(v, "cards", reader, &out) { row, path, out in
            let label = try text(reader.field(row, "name"), path.field("name"))
            let open = try openCards(reader.field(row, "open"), path.field("open"), reader)
            let facedown = try faceDown(reader.field(row, "facedown"), path.field("facedown"), reader)
            let note = try optionalText(reader.field(row, "note"), path.field("note"))
            out.key("facedown"); out.integer(facedown)
            out.key("name"); label.write(&out)
            if let note { out.key("note"); note.write(&out) }
            out.key("open"); out.beginArray()
            for card in open { card.write(&out) }
            out.endArray()
        }
        }
    }

    /// Where in the table a value is, for an error: a field, a row of a list, a field of
    /// a row. Written out only when an error names it.
    struct Path: CustomStringConvertible {
        var list: String
        var row: Int?
        var name: String?

        func field(_ name: String) -> Path { Path(list: list, row: row, name: name) }

        var description: String {
            var text = list
            if let row { text += "[\(row)]" }
            if let name { text += "." + name }
            return text
        }
    }

    /// A text read before the fields around it are written: a string's bytes where it lies
    /// on the stack (while the row that holds it is read), or a string made (a number, a
    /// text cut short).
    enum Text {
        case bytes(UnsafeBufferPointer<UInt8>), string(String)

        func write<Output: JSONOutput>(_ out: inout Output) {
            switch self {
            case .bytes(let bytes): out.string(bytes: bytes)
            case .string(let s): out.string(s)
            }
        }
    }

    /// A text or a number, read before the fields around it are written.
    enum Amount {
        case integer(Int64), number(Double), text(Text)

        func write<Output: JSONOutput>(_ out: inout Output) {
            switch self {
            case .integer(let n): out.integer(n)
            case .number(let d): out.number(d)
            case .text(let s): s.write(&out)
            }
        }
    }

    /// A card as a front end draws it.
    struct Card {
        var rank: Int64
        var suit: String

        static let names = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]

        func write<Output: JSONOutput>(_ out: inout Output) {
            out.beginObject()
            out.key("rank"); out.integer(rank)
            out.key("suit"); out.string(suit)
            out.key("text"); out.string(Self.names[Int(rank) - 1] + suit)
            out.endObject()
        }
    }

    /// How many entries a table has, refused past `limit`, charged (the lists below read
    /// their items by index: their entries are only counted).
    func boundedCount(_ t: LuaSlot, _ reader: LuaStackReader, path: @autoclosure () -> String, limit: Int) throws -> Int {
        let count = reader.count(t)
        try lua.charge(count)
        guard count <= limit else {
            throw Failure(description: "\(location): table(v, t) returned \(path()) with \(count) entries: at most \(limit) expected")
        }
        return count
    }

    func text(_ value: LuaSlot, _ path: @autoclosure () -> CustomStringConvertible) throws -> Text {
        switch value.kind {
        case .string:
            guard let bytes = value.stringBytes else { return .string("") }
            // As many bytes as the limit or fewer: no more characters, kept as bytes.
            if bytes.count <= Self.charactersPerText { return .bytes(bytes) }
            let s = String(decoding: bytes, as: UTF8.self)
            return .string(s.count <= Self.charactersPerText ? s : s.prefix(Self.charactersPerText) + "…")
        case .integer: return .string(String(value.integer ?? 0))
        case .float: return .string(LuaValue.format(value.float ?? .nan))
        default: throw fail(path().description, "a string", value)
        }
    }

    func optionalText(_ value: LuaSlot, _ path: @autoclosure () -> CustomStringConvertible) throws -> Text? {
        value.isNil ? nil : try text(value, path())
    }

    /// A number drawn as a number, or a text ("$205", "3 lives").
    func amount(_ value: LuaSlot, _ path: @autoclosure () -> CustomStringConvertible) throws -> Amount {
        if let n = value.integer { return .integer(n) }
        if let d = value.float, d.isFinite { return .number(d) }
        if value.isString { return .text(try text(value, path())) }
        throw fail(path().description, "a number or a string", value)
    }
}

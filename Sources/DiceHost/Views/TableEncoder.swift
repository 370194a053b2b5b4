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
///     cups      {{name = "Ann", dice = a roll | hidden("dice", 5) | {3, 5}, note = ...}, ...}
///     cards     {{name = "Ann", open = a card | {cards}, facedown = 12 | hidden("cards", 12)}, ...}
///
/// Anything else is an error naming the field and what was expected; no script code runs
/// (raw reads only) and sizes are capped: texts are cut at `charactersPerText`, lists
/// hold at most `rowsPerList` rows, `itemsPerRow` dice or cards.
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
        Failure(description: "\(location): table(v, t) returned \(path) = \(got.typeName): \(expected) expected")
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

    /// Checks and writes the table. Fields are checked in the order of the old tree-making
    /// encoder (so the same mistake is named first) and written with their keys sorted:
    /// a row's texts and counts are read first, then its fields written in key order.
    /// Paths in errors are made only when an error is raised.
    func encode<Output: JSONOutput>(_ value: LuaValue, into out: inout Output) throws {
        guard case .table(let t) = value else { throw fail("a value", "a table (headline, turn, ...)", value) }
        let entries = try boundedEntries(t, path: "the table", limit: Self.fields.count)
        // The table's own keys in `pairs` order: for the known (ASCII) names, sorted order.
        out.beginObject()
        for (key, v) in entries {
            guard case .string(let name) = key, Self.fields.contains(name) else {
                throw Failure(description: "\(location): table(v, t) returned an unknown field '\(key.description.prefix(40))' (the table knows \(Self.fields.joined(separator: ", ")))")
            }
            out.key(name)
            switch name {
            case "headline", "result", "last", "turn": out.string(try text(v, name))
            case "roll": try rollButton(v, &out)
            case "countdown": try countdown(v, &out)
            case "track": try track(v, &out)
            case "pot": try pot(v, &out)
            case "balances": try rows(v, name, &out) { row, path, out in
                let label = try text(lua.get(row, "name"), path.field("name"))
                let value = try amount(lua.get(row, "value"), path.field("value"))
                let note = try optionalText(lua.get(row, "note"), path.field("note"))
                out.key("name"); out.string(label)
                if let note { out.key("note"); out.string(note) }
                out.key("value"); value.write(&out)
            }
            case "cups": try rows(v, name, &out) { row, path, out in
                let label = try text(lua.get(row, "name"), path.field("name"))
                out.key("dice"); try dice(lua.get(row, "dice"), path.field("dice"), &out)
                let note = try optionalText(lua.get(row, "note"), path.field("note"))
                out.key("name"); out.string(label)
                if let note { out.key("note"); out.string(note) }
            }
            default: try rows(v, name, &out) { row, path, out in
                let label = try text(lua.get(row, "name"), path.field("name"))
                let open = try openCards(lua.get(row, "open"), path.field("open"))
                let facedown = try faceDown(lua.get(row, "facedown"), path.field("facedown"))
                let note = try optionalText(lua.get(row, "note"), path.field("note"))
                out.key("facedown"); out.integer(facedown)
                out.key("name"); out.string(label)
                if let note { out.key("note"); out.string(note) }
                out.key("open"); out.beginArray()
                for card in open { card.write(&out) }
                out.endArray()
            }
            }
        }
        out.endObject()
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

    /// A text or a number, read before the fields around it are written.
    enum Amount {
        case integer(Int64), number(Double), text(String)

        func write<Output: JSONOutput>(_ out: inout Output) {
            switch self {
            case .integer(let n): out.integer(n)
            case .number(let d): out.number(d)
            case .text(let s): out.string(s)
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

    /// The entries of a table the script made, refused past `limit` (read before any is
    /// looked at, so a table of a million keys costs one bounded pass).
    private func boundedEntries(_ t: LuaRef, path: @autoclosure () -> String, limit: Int) throws -> [(key: LuaValue, value: LuaValue)] {
        let entries = lua.entries(t)
        try lua.charge(entries.count)
        guard entries.count <= limit else {
            throw Failure(description: "\(location): table(v, t) returned \(path()) with \(entries.count) entries: at most \(limit) expected")
        }
        return entries
    }

    /// How many entries a table has, refused past `limit`, charged like `boundedEntries`
    /// (the lists below read their items by index: their entries are only counted).
    private func boundedCount(_ t: LuaRef, path: @autoclosure () -> String, limit: Int) throws -> Int {
        let count = lua.entryCount(t)
        try lua.charge(count)
        guard count <= limit else {
            throw Failure(description: "\(location): table(v, t) returned \(path()) with \(count) entries: at most \(limit) expected")
        }
        return count
    }

    private func text(_ value: LuaValue, _ path: @autoclosure () -> CustomStringConvertible) throws -> String {
        switch value {
        // No more bytes than the limit means no more characters: counting them is skipped.
        case .string(let s): return s.utf8.count <= Self.charactersPerText || s.count <= Self.charactersPerText ? s : s.prefix(Self.charactersPerText) + "…"
        case .integer, .number: return value.description
        default: throw fail(path().description, "a string", value)
        }
    }

    private func optionalText(_ value: LuaValue, _ path: @autoclosure () -> CustomStringConvertible) throws -> String? {
        value.isNil ? nil : try text(value, path())
    }

    /// A number drawn as a number, or a text ("$205", "3 lives").
    private func amount(_ value: LuaValue, _ path: @autoclosure () -> CustomStringConvertible) throws -> Amount {
        switch value {
        case .integer(let n): return .integer(n)
        case .number(let d) where d.isFinite: return .number(d)
        case .string: return .text(try text(value, path()))
        default: throw fail(path().description, "a number or a string", value)
        }
    }

    /// The Roll button: its label, true (the page's own), or false (no roll is taken now).
    private func rollButton<Output: JSONOutput>(_ value: LuaValue, _ out: inout Output) throws {
        switch value {
        case .boolean(let b): out.bool(b)
        case .string: out.string(try text(value, "roll"))
        default: throw fail("roll", "a label or false", value)
        }
    }

    private func countdown<Output: JSONOutput>(_ value: LuaValue, _ out: inout Output) throws {
        guard case .table(let t) = value else { throw fail("countdown", "{text = ..., ms = ...}", value) }
        let ms = lua.get(t, "ms")
        guard let left = ms.intValue, left >= 0, left <= HostLimits.maximumTime else {
            throw fail("countdown.ms", "the milliseconds left (0 or more, e.g. handle:left())", ms)
        }
        let label = try text(lua.get(t, "text"), "countdown.text")
        out.beginObject()
        out.key("ms"); out.integer(Int64(left))
        out.key("text"); out.string(label)
        out.endObject()
    }

    private func track<Output: JSONOutput>(_ value: LuaValue, _ out: inout Output) throws {
        guard case .table(let t) = value else { throw fail("track", "{target = ..., marks = {...}}", value) }
        let target = lua.get(t, "target")
        guard case .integer(let goal) = target, goal > 0 else { throw fail("track.target", "a whole number above 0", target) }
        let label = try optionalText(lua.get(t, "label"), "track.label")
        out.beginObject()
        if let label { out.key("label"); out.string(label) }
        out.key("marks")
        try rows(lua.get(t, "marks"), "track.marks", &out) { row, path, out in
            let at = lua.get(row, "at")
            guard case .integer(let position) = at else { throw fail(path.field("at").description, "a whole number", at) }
            let name = try text(lua.get(row, "name"), path.field("name"))
            out.key("at"); out.integer(position)
            out.key("name"); out.string(name)
        }
        out.key("target"); out.integer(goal)
        out.endObject()
    }

    private func pot<Output: JSONOutput>(_ value: LuaValue, _ out: inout Output) throws {
        let label: String, amount: Amount
        if case .table(let t) = value {
            label = try optionalText(lua.get(t, "label"), "pot.label") ?? "Pot"
            amount = try self.amount(lua.get(t, "value"), "pot.value")
        } else {
            label = "Pot"
            amount = try self.amount(value, "pot")
        }
        out.beginObject()
        out.key("label"); out.string(label)
        out.key("value"); amount.write(&out)
        out.endObject()
    }

    /// A list of rows (tables), each an object whose fields `row` writes.
    private func rows<Output: JSONOutput>(_ value: LuaValue, _ list: String, _ out: inout Output,
                                          _ row: (LuaRef, Path, inout Output) throws -> Void) throws {
        guard case .table(let t) = value else { throw fail(list, "a list of tables", value) }
        let count = try boundedCount(t, path: list, limit: Self.rowsPerList)
        guard lua.length(t) == count else { throw fail(list, "a list (keys 1 to n)", value) }
        out.beginArray()
        for i in 0..<count {
            let item = lua.get(t, .integer(Int64(i + 1)))
            let path = Path(list: list, row: i + 1)
            guard case .table(let r) = item else { throw fail(path.description, "a table", item) }
            out.beginObject()
            try row(r, path, &out)
            out.endObject()
        }
        out.endArray()
    }

    /// Dice as values, or hidden: a roll, `hidden("dice", n)`, or a list of die values.
    private func dice<Output: JSONOutput>(_ value: LuaValue, _ path: Path, _ out: inout Output) throws {
        guard case .table(let t) = value else { throw fail(path.description, "a roll, hidden(\"dice\", n) or a list of die values", value) }
        if lua.get(t, "hidden") == .boolean(true) {
            let n = try hiddenCount(t, path)
            out.beginObject(); out.key("hidden"); out.integer(n); out.endObject()
            return
        }
        var list = t
        if case .table(let values) = lua.get(t, "values") { list = values }
        let count = try boundedCount(list, path: path.description, limit: Self.itemsPerRow)
        guard lua.length(list) == count else { throw fail(path.description, "a list of die values", value) }
        out.beginObject()
        out.key("values")
        out.beginArray()
        for i in 0..<count {
            let v = lua.get(list, .integer(Int64(i + 1)))
            guard case .integer(let n) = v, (1...1_000_000).contains(n) else { throw fail("\(path)[\(i + 1)]", "a die value (1 or more)", v) }
            out.integer(n)
        }
        out.endArray()
        out.endObject()
    }

    private func hiddenCount(_ t: LuaRef, _ path: Path) throws -> Int64 {
        let count = lua.get(t, "count")
        guard case .integer(let n) = count, (0...Int64(Self.itemsPerRow * 100)).contains(n) else {
            throw fail(path.description + ".count", "a count from 0", count)
        }
        return n
    }

    /// Open cards: none (nil), one card, or a list of cards.
    private func openCards(_ value: LuaValue, _ path: Path) throws -> [Card] {
        guard case .table(let t) = value else {
            if value.isNil { return [] }
            throw fail(path.description, "a card or a list of cards", value)
        }
        if lua.get(t, "rank") != .nil { return [try card(t, path.description)] }
        let count = try boundedCount(t, path: path.description, limit: Self.itemsPerRow)
        guard lua.length(t) == count else { throw fail(path.description, "a list of cards", value) }
        var cards: [Card] = []
        cards.reserveCapacity(count)
        for i in 0..<count {
            let item = lua.get(t, .integer(Int64(i + 1)))
            guard case .table(let c) = item else { throw fail("\(path)[\(i + 1)]", "a card", item) }
            cards.append(try card(c, "\(path)[\(i + 1)]"))
        }
        return cards
    }

    private func card(_ t: LuaRef, _ path: @autoclosure () -> String) throws -> Card {
        let rank = lua.get(t, "rank"), suit = lua.get(t, "suit")
        guard case .integer(let r) = rank, (1...13).contains(r), case .string(let s) = suit, !s.isEmpty else {
            throw fail(path(), "a card (cards.deck()'s, with rank 1-13 and suit)", .table(t))
        }
        return Card(rank: r, suit: String(s.prefix(8)))
    }

    /// A face-down stack: a count or `hidden("cards", n)`; none is 0.
    private func faceDown(_ value: LuaValue, _ path: Path) throws -> Int64 {
        switch value {
        case .nil: return 0
        case .integer(let n) where (0...Int64(Self.itemsPerRow * 100)).contains(n): return n
        case .table(let t) where lua.get(t, "hidden") == .boolean(true): return try hiddenCount(t, path)
        default: throw fail(path.description, "a count of cards or hidden(\"cards\", n)", value)
        }
    }
}

import Lua

/// A view (what `view(g, viewer)` returned) as JSON any front end can draw. Host values
/// keep their kind: a roll is `{"kind":"roll","values":[3,5],"total":8,"flag":"ok"}`, a
/// card `{"kind":"card","rank":1,"suit":"♠","text":"A♠"}`, a hidden thing
/// `{"kind":"hidden","what":"dice","count":5}`; other tables are arrays (keys 1…n) or
/// objects. Bounded like the REPL's `state`: a script controls the view's size, so depth,
/// entries and string lengths are capped (past them, `"…"`); no script code runs.
struct ViewEncoder {
    static let maximumDepth = 8
    static let maximumEntries = 20_000
    static let charactersPerString = 4_000

    let lua: LuaState
    private var entries = 0

    init(lua: LuaState) { self.lua = lua }

    /// The view as a `JSONValue`.
    mutating func encode(_ value: LuaValue, depth: Int = 0) -> JSONValue {
        var tree = JSONTree()
        encode(value, depth: depth, into: &tree)
        return tree.value
    }

    /// The view as JSON text: the `JSONValue`'s `description`, written without making the
    /// value (a server writes a view per seat after every input, issue 32).
    mutating func encodeText(_ value: LuaValue) -> String {
        var bytes = JSONBytes()
        encode(value, depth: 0, into: &bytes)
        return bytes.text
    }

    mutating func encode<Output: JSONOutput>(_ value: LuaValue, depth: Int, into out: inout Output) {
        switch value {
        case .nil: out.null()
        case .boolean(let b): out.bool(b)
        case .integer(let i): out.integer(i)
        case .number(let d): if d.isFinite { out.number(d) } else { out.null() }
        // No more bytes than the limit means no more characters: counting them is skipped.
        case .string(let s): out.string(s.utf8.count <= Self.charactersPerString || s.count <= Self.charactersPerString ? s : s.prefix(Self.charactersPerString) + "…")
        case .table(let t): encodeTable(t, depth: depth, into: &out)
        default: out.string(value.typeName)
        }
    }

    private mutating func encodeTable<Output: JSONOutput>(_ t: LuaRef, depth: Int, into out: inout Output) {
        if hostValue(t, into: &out) { return }
        guard depth < Self.maximumDepth, entries < Self.maximumEntries else { return out.string("…") }
        let fields = lua.entries(t)
        entries += fields.count
        guard entries <= Self.maximumEntries else { return out.string("…") }
        let length = lua.length(t)
        if length == fields.count, length > 0 {
            out.beginArray()
            for i in 1...length { encode(lua.get(t, .integer(Int64(i))), depth: depth + 1, into: &out) }
            out.endArray()
            return
        }
        let names = fields.map { field -> String in
            if case .string(let s) = field.key { return s }
            return field.key.description
        }
        // Fields come in `pairs` order and are written in sorted order, each name once (a
        // later field of the same name, as `1` and `"1"`, wins, as in a dictionary): when
        // the two orders agree - string keys in ASCII, the usual view - as they come.
        if zip(names, names.dropFirst()).allSatisfy({ $0 < $1 }) {
            out.beginObject()
            for (name, field) in zip(names, fields) {
                out.key(name)
                encode(field.value, depth: depth + 1, into: &out)
            }
            out.endObject()
            return
        }
        var object: [String: JSONValue] = [:]
        for (name, field) in zip(names, fields) {
            var tree = JSONTree()
            encode(field.value, depth: depth + 1, into: &tree)
            object[name] = tree.value
        }
        out.value(.object(object))
    }

    /// A roll, a card or a hidden thing, read from its fields (as StateRenderer does),
    /// written with its keys sorted; false for any other table.
    private func hostValue<Output: JSONOutput>(_ t: LuaRef, into out: inout Output) -> Bool {
        if lua.get(t, "hidden") == .boolean(true), case .string(let what) = lua.get(t, "what"), let count = lua.get(t, "count").intValue {
            out.beginObject()
            out.key("count"); out.integer(Int64(count))
            out.key("kind"); out.string("hidden")
            out.key("what"); out.string(String(what.prefix(100)))
            out.endObject()
            return true
        }
        if case .table(let valuesTable) = lua.get(t, "values"), case .string(let flag) = lua.get(t, "flag") {
            let count = min(lua.length(valuesTable), 1000)
            out.beginObject()
            out.key("flag"); out.string(String(flag.prefix(20)))
            out.key("kind"); out.string("roll")
            if let total = lua.get(t, "total").intValue { out.key("total"); out.integer(Int64(total)) }
            out.key("values")
            out.beginArray()
            if count > 0 {
                for i in 1...count {
                    if let value = lua.get(valuesTable, .integer(Int64(i))).intValue { out.integer(Int64(value)) } else { out.null() }
                }
            }
            out.endArray()
            out.endObject()
            return true
        }
        if case .integer(let rank) = lua.get(t, "rank"), (1...13).contains(rank), case .string(let suit) = lua.get(t, "suit") {
            let names = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
            let suitText = String(suit.prefix(8))
            out.beginObject()
            out.key("kind"); out.string("card")
            out.key("rank"); out.integer(rank)
            out.key("suit"); out.string(suitText)
            out.key("text"); out.string(names[Int(rank) - 1] + suitText)
            out.endObject()
            return true
        }
        return false
    }
}

import Lua

/// A view (what `view(g, viewer)` returned) as JSON any front end can draw. Host values
/// keep their kind: a roll is `{"kind":"roll","values":[3,5],"total":8,"flag":"ok"}`, a
/// card `{"kind":"card","rank":1,"suit":"♠","text":"A♠"}`, a hidden thing
/// `{"kind":"hidden","what":"dice","count":5}`; other tables are arrays (keys 1…n) or
/// objects. Bounded like the REPL's `state`: a script controls the view's size, so depth,
/// entries and string lengths are capped (past them, `"…"`); no script code runs.
///
/// The view is read where it lies on the Lua stack (`LuaStackReader`): no `LuaValue`,
/// registry reference or Swift `String` per value read (they were most of what
/// a served view cost).
struct ViewEncoder {
    static let maximumDepth = 8
    static let maximumEntries = 20_000
    static let charactersPerString = 4_000

    let lua: LuaState
    private var entries = 0
    /// Per depth, the fields of the object written there (the list kept for the next, not
    /// made per table).
    private var keyLists: [[(key: UnsafeBufferPointer<UInt8>, value: LuaSlot)]] = []

    init(lua: LuaState) { self.lua = lua }

    /// The view as a `JSONValue`.
    mutating func encode(_ value: LuaValue, depth: Int = 0) -> JSONValue {
        var tree = JSONTree()
        encode(value, depth: depth, into: &tree)
        return tree.value
    }

    /// The view as JSON text: the `JSONValue`'s `description`, written without making the
    /// value (a server writes a view per seat after every input).
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
        case .string(let s): out.string(Self.cut(s))
        case .table: lua.reading(value) { reader, table in encodeTable(table, reader, depth: depth, into: &out) }
        default: out.string(value.typeName)
        }
    }

    /// A string cut at `charactersPerString` characters (then ending in "…").
    static func cut(_ s: String) -> String {
        // No more bytes than the limit means no more characters: counting them is skipped.
        s.utf8.count <= charactersPerString || s.count <= charactersPerString ? s : s.prefix(charactersPerString) + "…"
    }

    private mutating func encode<Output: JSONOutput>(_ slot: LuaSlot, _ reader: LuaStackReader, depth: Int, into out: inout Output) {
        switch slot.kind {
        case .nil: out.null()
        case .boolean: out.bool(slot.isTrue)
        case .integer: out.integer(slot.integer ?? 0)
        case .float:
            let d = slot.float ?? .nan
            if d.isFinite { out.number(d) } else { out.null() }
        case .string:
            guard let bytes = slot.stringBytes else { return out.null() }
            // As many bytes as the limit or fewer: no more characters, written from the bytes.
            if bytes.count <= Self.charactersPerString { out.string(bytes: bytes) } else {
                out.string(Self.cut(String(decoding: bytes, as: UTF8.self)))
            }
        case .table: encodeTable(slot, reader, depth: depth, into: &out)
        case .other: out.string(slot.typeName)
        }
    }

    private mutating func encodeTable<Output: JSONOutput>(_ t: LuaSlot, _ reader: LuaStackReader, depth: Int, into out: inout Output) {
        guard depth < Self.maximumDepth, entries < Self.maximumEntries else {
            if hostValue(t, reader, into: &out) { return }
            return out.string("…")
        }
        reader.restoring {
            // One pass over the entries: counted, a host value's field names looked for, and
            // while all keys are plain (ASCII) strings - the usual view, whose `pairs` order is
            // then its keys' sorted order - each key and value kept on the stack, written from
            // there (no key looked up again).
            while keyLists.count <= depth { keyLists.append([]) }
            var fields: [(key: UnsafeBufferPointer<UInt8>, value: LuaSlot)] = []
            swap(&fields, &keyLists[depth])
            defer { swap(&fields, &keyLists[depth]) }
            fields.removeAll(keepingCapacity: true)
            var count = 0
            var plain = true
            var hostFields = false
            let kept = reader.forEach(t) { key, value in
                count += 1
                guard let bytes = key.stringBytes else { plain = false; return false }
                if !hostFields, Self.isHostField(bytes) { hostFields = true }
                guard plain, !bytes.contains(where: { $0 >= 0x80 }) else { plain = false; return false }
                fields.append((bytes, value))
                return true
            }
            // Only a table with one of their fields can be a roll, a card or a hidden thing.
            if hostFields, hostValue(t, reader, into: &out) { return }
            entries += count
            guard entries <= Self.maximumEntries else { return out.string("…") }
            let length = reader.length(t)
            if length == count, length > 0 {
                out.beginArray()
                for i in 1...length {
                    reader.restoring { encode(reader.element(t, Int64(i)), reader, depth: depth + 1, into: &out) }
                }
                out.endArray()
                return
            }
            guard plain, kept else { return encodeObject(t, reader, depth: depth, into: &out) }
            // Distinct ASCII names in byte order are in the order a dictionary of them sorts.
            fields.sort { Self.bytewiseLess($0.key, $1.key) }
            out.beginObject()
            for field in fields {
                out.key(bytes: field.key)
                reader.restoring { encode(field.value, reader, depth: depth + 1, into: &out) }
            }
            out.endObject()
        }
    }

    /// Whether a key is one a host value is told by ("hidden", "values", "rank").
    static func isHostField(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        key.holds("hidden") || key.holds("values") || key.holds("rank")
    }

    static func bytewiseLess(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for i in 0..<min(a.count, b.count) where a[i] != b[i] { return a[i] < b[i] }
        return a.count < b.count
    }

    /// An object with a key that is not a plain string (a number, a non-ASCII name):
    /// written as a dictionary of its fields' names writes it.
    private mutating func encodeObject<Output: JSONOutput>(_ t: LuaSlot, _ reader: LuaStackReader, depth: Int, into out: inout Output) {
        reader.withKeys(t) { keys in
            let names = keys.map { key -> String in
                if case .string(let s) = key.value { return s }
                return key.value.description
            }
            // Fields come in `pairs` order and are written in sorted order, each name once (a
            // later field of the same name, as `1` and `"1"`, wins, as in a dictionary): when
            // the two orders agree, as they come.
            if zip(names, names.dropFirst()).allSatisfy({ $0 < $1 }) {
                out.beginObject()
                for (name, key) in zip(names, keys) {
                    out.key(name)
                    reader.restoring { encode(reader.field(t, key: key.slot), reader, depth: depth + 1, into: &out) }
                }
                out.endObject()
                return
            }
            var object: [String: JSONValue] = [:]
            for (name, key) in zip(names, keys) {
                var tree = JSONTree()
                reader.restoring { encode(reader.field(t, key: key.slot), reader, depth: depth + 1, into: &tree) }
                object[name] = tree.value
            }
            out.value(.object(object))
        }
    }

    /// A string read from a host value's field, cut at `characters` characters (no "…").
    private static func write<Output: JSONOutput>(_ bytes: UnsafeBufferPointer<UInt8>, cutAt characters: Int, into out: inout Output) {
        if bytes.count <= characters { out.string(bytes: bytes) } else {
            out.string(String(String(decoding: bytes, as: UTF8.self).prefix(characters)))
        }
    }

    /// A roll, a card or a hidden thing, read from its fields (as StateRenderer does),
    /// written with its keys sorted; false for any other table.
    private func hostValue<Output: JSONOutput>(_ t: LuaSlot, _ reader: LuaStackReader, into out: inout Output) -> Bool {
        reader.restoring { hidden(t, reader, into: &out) } || reader.restoring { roll(t, reader, into: &out) }
            || reader.restoring { card(t, reader, into: &out) }
    }

    private func hidden<Output: JSONOutput>(_ t: LuaSlot, _ reader: LuaStackReader, into out: inout Output) -> Bool {
        guard reader.field(t, "hidden").isTrue, let what = reader.field(t, "what").stringBytes,
              let count = reader.field(t, "count").intValue else { return false }
        out.beginObject()
        out.key("count"); out.integer(Int64(count))
        out.key("kind"); out.string("hidden")
        out.key("what"); Self.write(what, cutAt: 100, into: &out)
        out.endObject()
        return true
    }

    private func roll<Output: JSONOutput>(_ t: LuaSlot, _ reader: LuaStackReader, into out: inout Output) -> Bool {
        let valuesTable = reader.field(t, "values")
        guard valuesTable.isTable, let flag = reader.field(t, "flag").stringBytes else { return false }
        let count = min(reader.length(valuesTable), 1000)
        out.beginObject()
        out.key("flag"); Self.write(flag, cutAt: 20, into: &out)
        out.key("kind"); out.string("roll")
        if let total = reader.field(t, "total").intValue { out.key("total"); out.integer(Int64(total)) }
        out.key("values")
        out.beginArray()
        if count > 0 {
            for i in 1...count {
                reader.restoring {
                    if let value = reader.element(valuesTable, Int64(i)).intValue { out.integer(Int64(value)) } else { out.null() }
                }
            }
        }
        out.endArray()
        out.endObject()
        return true
    }

    private static let rankNames = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]

    private func card<Output: JSONOutput>(_ t: LuaSlot, _ reader: LuaStackReader, into out: inout Output) -> Bool {
        guard let rank = reader.field(t, "rank").integer, (1...13).contains(rank),
              let suit = reader.field(t, "suit").stringBytes else { return false }
        let suitText = String(String(decoding: suit, as: UTF8.self).prefix(8))
        out.beginObject()
        out.key("kind"); out.string("card")
        out.key("rank"); out.integer(rank)
        out.key("suit"); out.string(suitText)
        out.key("text"); out.string(Self.rankNames[Int(rank) - 1] + suitText)
        out.endObject()
        return true
    }
}

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

    mutating func encode(_ value: LuaValue, depth: Int = 0) -> JSONValue {
        switch value {
        case .nil: return .null
        case .boolean(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .number(let d): return d.isFinite ? .number(d) : .null
        case .string(let s): return .string(s.count <= Self.charactersPerString ? s : s.prefix(Self.charactersPerString) + "…")
        case .table(let t): return encodeTable(t, depth: depth)
        default: return .string(value.typeName)
        }
    }

    private mutating func encodeTable(_ t: LuaRef, depth: Int) -> JSONValue {
        if let kind = hostValue(t) { return kind }
        guard depth < Self.maximumDepth, entries < Self.maximumEntries else { return .string("…") }
        let fields = lua.entries(t)
        entries += fields.count
        guard entries <= Self.maximumEntries else { return .string("…") }
        let length = lua.length(t)
        if length == fields.count, length > 0 {
            return .array((1...length).map { encode(lua.get(t, .integer(Int64($0))), depth: depth + 1) })
        }
        var object: [String: JSONValue] = [:]
        for (key, v) in fields {
            let name: String
            switch key {
            case .string(let s): name = s
            default: name = key.description
            }
            object[name] = encode(v, depth: depth + 1)
        }
        return .object(object)
    }

    /// A roll, a card or a hidden thing, read from its fields (as StateRenderer does).
    private func hostValue(_ t: LuaRef) -> JSONValue? {
        if lua.get(t, "hidden") == .boolean(true), case .string(let what) = lua.get(t, "what"), let count = lua.get(t, "count").intValue {
            return .object(["kind": .string("hidden"), "what": .string(String(what.prefix(100))), "count": .integer(Int64(count))])
        }
        if case .table(let valuesTable) = lua.get(t, "values"), case .string(let flag) = lua.get(t, "flag") {
            let count = min(lua.length(valuesTable), 1000)
            let values = count == 0 ? [] : (1...count).map { lua.get(valuesTable, .integer(Int64($0))).intValue.map { JSONValue.integer(Int64($0)) } ?? .null }
            var object: [String: JSONValue] = ["kind": .string("roll"), "values": .array(values), "flag": .string(String(flag.prefix(20)))]
            if let total = lua.get(t, "total").intValue { object["total"] = .integer(Int64(total)) }
            return .object(object)
        }
        if case .integer(let rank) = lua.get(t, "rank"), (1...13).contains(rank), case .string(let suit) = lua.get(t, "suit") {
            let names = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
            let suitText = String(suit.prefix(8))
            return .object(["kind": .string("card"), "rank": .integer(rank), "suit": .string(suitText),
                            "text": .string(names[Int(rank) - 1] + suitText)])
        }
        return nil
    }
}

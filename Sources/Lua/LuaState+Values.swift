import CLua
import CLuaSupport

extension LuaState {
    /// Pushes a Swift value. Never raises: the memory cap applies only while Lua runs.
    func push(_ value: LuaValue) {
        push(value, on: L)
    }

    func push(_ value: LuaValue, on thread: OpaquePointer) {
        switch value {
        case .nil: lua_pushnil(thread)
        case .boolean(let b): lua_pushboolean(thread, b ? 1 : 0)
        case .integer(let i): lua_pushinteger(thread, lua_Integer(i))
        case .number(let d): lua_pushnumber(thread, d)
        case .string(let s): pushString(s, on: thread)
        case .table(let r), .function(let r), .userdata(let r), .thread(let r):
            precondition(r.state === self, "a Lua value from another state")
            clua_getref(thread, r.reference)
        case .lightUserdata(let p): lua_pushlightuserdata(thread, p)
        }
    }

    func pushString(_ s: String, on thread: OpaquePointer) {
        var s = s
        s.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                _ = lua_pushlstring(thread, chars.baseAddress, chars.count)
            }
        }
    }

    /// The value at a stack index, with tables, functions, userdata and coroutines
    /// held by reference (no copying, so recursive tables are fine).
    func value(at index: Int32) -> LuaValue {
        value(at: index, on: L)
    }

    func value(at index: Int32, on thread: OpaquePointer) -> LuaValue {
        switch lua_type(thread, index) {
        case LUA_TNIL, LUA_TNONE: return .nil
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(thread, index) != 0)
        case LUA_TNUMBER:
            if clua_isinteger(thread, index) != 0 { return .integer(Int64(clua_tointeger(thread, index))) }
            return .number(clua_tonumber(thread, index))
        case LUA_TSTRING: return .string(string(at: index, on: thread) ?? "")
        case LUA_TTABLE: return .table(makeRef(at: index, on: thread))
        case LUA_TFUNCTION: return .function(makeRef(at: index, on: thread))
        case LUA_TUSERDATA: return .userdata(makeRef(at: index, on: thread))
        case LUA_TTHREAD: return .thread(makeRef(at: index, on: thread))
        case LUA_TLIGHTUSERDATA: return .lightUserdata(lua_touserdata(thread, index))
        default: return .nil
        }
    }

    /// The string at an index (bytes as UTF-8, embedded NULs kept), without converting
    /// numbers in place; nil for other types.
    func string(at index: Int32, on thread: OpaquePointer? = nil) -> String? {
        let thread = thread ?? L
        guard lua_type(thread, index) == LUA_TSTRING else { return nil }
        var length = 0
        guard let chars = clua_tostring(thread, index, &length) else { return nil }
        return chars.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    func makeRef(at index: Int32, on thread: OpaquePointer? = nil) -> LuaRef {
        let thread = thread ?? L
        lua_pushvalue(thread, index)
        if thread != L { lua_xmove(thread, L, 1) }
        return LuaRef(state: self, reference: clua_ref(L))
    }

    func release(_ reference: Int32) {
        clua_unref(L, reference)
    }

    // MARK: Tables

    /// A new empty table.
    public func newTable() -> LuaRef {
        clua_newtable(L)
        defer { clua_pop(L, 1) }
        return makeRef(at: -1)
    }

    /// The sandbox's global table, where rule scripts find `print`, `string`, and the
    /// libraries the host installs.
    public var globals: LuaRef {
        clua_getref(L, sandboxReference)
        defer { clua_pop(L, 1) }
        return makeRef(at: -1)
    }

    /// `table[key]` without metamethods. Here and below, a read-only table (see
    /// `freeze`) reads and writes its fields where they are kept.
    public func get(_ table: LuaRef, _ key: LuaValue) -> LuaValue {
        guard lua_checkstack(L, 3) != 0 else { return .nil }
        clua_getref(L, table.reference)
        guard lua_type(L, -1) == LUA_TTABLE else { clua_pop(L, 1); return .nil }
        clua_see_through(L, -1)
        push(key)
        lua_rawget(L, -2)
        defer { clua_pop(L, 2) }
        return value(at: -1)
    }

    /// `table.a.b…` without metamethods, nil where a step is not a table. Only the
    /// last value is converted, so reading `g.current.seat` makes no reference.
    public func get(_ table: LuaRef, path keys: String...) -> LuaValue {
        guard lua_checkstack(L, 2) != 0 else { return .nil }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        clua_getref(L, table.reference)
        for key in keys {
            guard lua_type(L, -1) == LUA_TTABLE else { return .nil }
            clua_see_through(L, -1)
            pushString(key, on: L)
            lua_rawget(L, -2)
        }
        return value(at: -1)
    }

    /// `table[key] = value` without metamethods; a nil or NaN key is ignored.
    public func set(_ table: LuaRef, _ key: LuaValue, _ newValue: LuaValue) {
        if key.isNil { return }
        if case .number(let d) = key, d.isNaN { return }
        guard lua_checkstack(L, 3) != 0 else { return }
        clua_getref(L, table.reference)
        guard lua_type(L, -1) == LUA_TTABLE else { clua_pop(L, 1); return }
        clua_see_through(L, -1)
        push(key)
        push(newValue)
        lua_rawset(L, -3)
        clua_pop(L, 1)
    }

    /// `#table` without metamethods.
    public func length(_ table: LuaRef) -> Int {
        clua_getref(L, table.reference)
        defer { clua_pop(L, 1) }
        clua_see_through(L, -1)
        return Int(lua_rawlen(L, -1))
    }

    /// The table's entries in the deterministic order scripts see with `pairs`
    /// (numbers ascending, then strings, then booleans).
    public func entries(_ table: LuaRef) -> [(key: LuaValue, value: LuaValue)] {
        clua_getref(L, table.reference)
        guard lua_type(L, -1) == LUA_TTABLE else { clua_pop(L, 1); return [] }
        clua_see_through(L, -1)
        var result: [(key: LuaValue, value: LuaValue)] = []
        lua_pushnil(L)
        while lua_next(L, -2) != 0 {
            result.append((value(at: -2), value(at: -1)))
            clua_pop(L, 1)
        }
        clua_pop(L, 1)
        return result.sorted { LuaValue.keyOrder($0.key, $1.key) }
    }

    /// How many entries the table has (what `entries` would return), counted without
    /// converting them: a check of a list's size reads no value twice.
    public func entryCount(_ table: LuaRef) -> Int {
        clua_getref(L, table.reference)
        guard lua_type(L, -1) == LUA_TTABLE else { clua_pop(L, 1); return 0 }
        clua_see_through(L, -1)
        var count = 0
        lua_pushnil(L)
        while lua_next(L, -2) != 0 {
            count += 1
            clua_pop(L, 1)
        }
        clua_pop(L, 1)
        return count
    }

    /// A table's array part `t[1..#t]`.
    public func array(_ table: LuaRef) -> [LuaValue] {
        (0..<length(table)).map { get(table, .integer(Int64($0 + 1))) }
    }

    /// A new table with the given array items and fields.
    public func makeTable(array items: [LuaValue] = [], fields: [(String, LuaValue)] = []) -> LuaRef {
        // Filled on the stack, sized once: one registry slot for the table, none per item
        // (a server makes several of these per seat and input).
        guard lua_checkstack(L, 4) != 0 else {
            let table = newTable()
            for (i, item) in items.enumerated() { set(table, .integer(Int64(i + 1)), item) }
            for (key, value) in fields { set(table, .string(key), value) }
            return table
        }
        lua_createtable(L, Int32(clamping: items.count), Int32(clamping: fields.count))
        for (i, item) in items.enumerated() {
            push(item)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        for (key, value) in fields {
            pushString(key, on: L)
            push(value)
            lua_rawset(L, -3)
        }
        defer { clua_pop(L, 1) }
        return makeRef(at: -1)
    }
}

extension LuaValue {
    /// Whether integer `i` is less than float `f`, compared exactly (as doubles,
    /// math.maxinteger and 2^63 would be equal).
    static func exactlyLess(integer i: Int64, than f: Double) -> Bool {
        if f >= 9223372036854775808.0 { return true }
        if f < -9223372036854775808.0 { return false }
        let whole = f.rounded(.down)
        let w = Int64(whole)
        return i < w || (i == w && f > whole)
    }

    static func exactlyEqual(integer i: Int64, _ f: Double) -> Bool {
        f >= -9223372036854775808.0 && f < 9223372036854775808.0 && f == f.rounded(.down) && Int64(f) == i
    }

    /// Whether `x`'s UTF-8 bytes come before `y`'s (the first byte that differs; else the shorter first).
    static func bytewiseLess(_ x: String, _ y: String) -> Bool {
        var x = x, y = y
        return x.withUTF8 { a in
            y.withUTF8 { b in
                for i in 0..<min(a.count, b.count) where a[i] != b[i] { return a[i] < b[i] }
                return a.count < b.count
            }
        }
    }

    /// The key order of the sandbox's `pairs`: numbers, then strings (bytewise), then booleans.
    static func keyOrder(_ a: LuaValue, _ b: LuaValue) -> Bool {
        func rank(_ v: LuaValue) -> Int {
            switch v {
            case .integer, .number: return 0
            case .string: return 1
            case .boolean: return 2
            default: return 3
            }
        }
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb }
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y
        // Bytewise, on the strings' own bytes: copying both into arrays for every comparison
        // was most of what sorting a view's fields cost.
        case (.string(let x), .string(let y)): return Self.bytewiseLess(x, y)
        case (.boolean(let x), .boolean(let y)): return !x && y
        case (.integer(let i), .number(let f)): return Self.exactlyLess(integer: i, than: f)
        case (.number(let f), .integer(let i)): return !Self.exactlyLess(integer: i, than: f) && !Self.exactlyEqual(integer: i, f)
        default:
            if let x = a.doubleValue, let y = b.doubleValue { return x < y }
            return false
        }
    }
}

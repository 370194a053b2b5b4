import CLua
import CLuaSupport

/// A value on the Lua stack, read where it lies: no `LuaValue` made, no registry reference
/// taken for a table, no Swift `String` made for a string. Made by a `LuaStackReader`, and
/// valid while the reader's `restoring` block (or `reading` call) that pushed it runs.
/// A slot the stack had no room for reads as nil.
public struct LuaSlot {
    @usableFromInline let L: OpaquePointer
    /// The absolute stack index, 0 for none (a push the stack had no room for).
    @usableFromInline let index: Int32

    @usableFromInline init(_ L: OpaquePointer, _ index: Int32) {
        self.L = L
        self.index = index
    }

    @usableFromInline var type: Int32 { index == 0 ? LUA_TNIL : lua_type(L, index) }

    /// What a slot holds, told apart in one look (numbers as Lua's two subtypes).
    public enum Kind { case `nil`, boolean, integer, float, string, table, other }

    public var kind: Kind {
        switch type {
        case LUA_TNIL: return .nil
        case LUA_TBOOLEAN: return .boolean
        case LUA_TNUMBER: return clua_isinteger(L, index) != 0 ? .integer : .float
        case LUA_TSTRING: return .string
        case LUA_TTABLE: return .table
        default: return .other
        }
    }

    public var isNil: Bool { type == LUA_TNIL }
    public var isTable: Bool { type == LUA_TTABLE }
    public var isString: Bool { type == LUA_TSTRING }

    /// The name Lua's `type()` gives (as `LuaValue.typeName`).
    public var typeName: String {
        switch type {
        case LUA_TNIL: return "nil"
        case LUA_TBOOLEAN: return "boolean"
        case LUA_TNUMBER: return "number"
        case LUA_TSTRING: return "string"
        case LUA_TTABLE: return "table"
        case LUA_TFUNCTION: return "function"
        case LUA_TTHREAD: return "thread"
        default: return "userdata"
        }
    }

    /// The boolean, nil for any other type.
    public var boolean: Bool? { type == LUA_TBOOLEAN ? lua_toboolean(L, index) != 0 : nil }

    /// Whether this is the boolean `true` (as `value == .boolean(true)`).
    public var isTrue: Bool { type == LUA_TBOOLEAN && lua_toboolean(L, index) != 0 }

    /// The integer, nil for a float or any other type (as `case .integer`).
    public var integer: Int64? {
        guard type == LUA_TNUMBER, clua_isinteger(L, index) != 0 else { return nil }
        return Int64(clua_tointeger(L, index))
    }

    /// The float, nil for an integer or any other type (as `case .number`).
    public var float: Double? {
        guard type == LUA_TNUMBER, clua_isinteger(L, index) == 0 else { return nil }
        return clua_tonumber(L, index)
    }

    /// An integer, or a float with an integer's value (as `LuaValue.intValue`).
    public var intValue: Int? {
        if let integer { return Int(exactly: integer) }
        if let float { return Int(exactly: float) }
        return nil
    }

    /// The string's bytes, nil for any other type (numbers are not converted). They stay
    /// where they are while the string is on the stack or a key of a table on it (Lua
    /// does not move strings), as long as no script code runs.
    public var stringBytes: UnsafeBufferPointer<UInt8>? {
        guard type == LUA_TSTRING else { return nil }
        var length = 0
        guard let chars = clua_tostring(L, index, &length) else { return nil }
        return UnsafeBufferPointer(start: UnsafeRawPointer(chars).assumingMemoryBound(to: UInt8.self), count: length)
    }
}

/// Reads tables on the Lua stack without metamethods, seeing through frozen tables as
/// `LuaState.get` does: a reader of a whole nested value (a view, what a table hook
/// returned) that makes nothing per value it reads (through `LuaValue`s, every
/// table read took and released a registry reference and every string became a Swift
/// `String`, most of what encoding a seat's look cost). Runs no script code.
///
///     try lua.reading(value) { reader, top in
///         let name = reader.field(top, "name")      // pushed; popped when `reading` ends
///         ...
///     }
public struct LuaStackReader {
    let state: LuaState
    @usableFromInline let L: OpaquePointer

    init(_ state: LuaState) {
        self.state = state
        self.L = state.L
    }

    /// The value just pushed, of type `type`, as a slot (a table: where its fields are kept).
    private func pushed(_ type: Int32) -> LuaSlot {
        if type == LUA_TTABLE { clua_see_through(L, -1) }
        return LuaSlot(L, lua_gettop(L))
    }

    /// Runs `body`; what it pushed is popped after.
    public func restoring<T>(_ body: () throws -> T) rethrows -> T {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        return try body()
    }

    /// Pushes `value` (a table: where its fields are kept).
    public func push(_ value: LuaValue) -> LuaSlot {
        guard lua_checkstack(L, 1) != 0 else { return LuaSlot(L, 0) }
        state.push(value)
        return pushed(lua_type(L, -1))
    }

    /// Pushes `table[key]`; nil where `table` is not a table.
    public func field(_ table: LuaSlot, _ key: StaticString) -> LuaSlot {
        guard table.isTable, lua_checkstack(L, 2) != 0 else { return LuaSlot(L, 0) }
        // A literal's bytes, pushed as they are (no closure around them: this is the hot read).
        _ = lua_pushlstring(L, UnsafeRawPointer(key.utf8Start).assumingMemoryBound(to: CChar.self), key.utf8CodeUnitCount)
        return pushed(lua_rawget(L, table.index))
    }

    /// Pushes `table[key]` for a string key given by its bytes.
    public func field(_ table: LuaSlot, bytes key: UnsafeBufferPointer<UInt8>) -> LuaSlot {
        guard table.isTable, lua_checkstack(L, 2) != 0 else { return LuaSlot(L, 0) }
        key.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(L, $0.baseAddress, $0.count) }
        return pushed(lua_rawget(L, table.index))
    }

    /// Pushes `table[key]` for any key.
    public func field(_ table: LuaSlot, key: LuaValue) -> LuaSlot {
        guard table.isTable, lua_checkstack(L, 2) != 0 else { return LuaSlot(L, 0) }
        state.push(key)
        return pushed(lua_rawget(L, table.index))
    }

    /// Pushes `table[i]`.
    public func element(_ table: LuaSlot, _ i: Int64) -> LuaSlot {
        guard table.isTable, lua_checkstack(L, 1) != 0 else { return LuaSlot(L, 0) }
        return pushed(lua_rawgeti(L, table.index, lua_Integer(i)))
    }

    /// `#table` without metamethods; 0 for anything but a table.
    public func length(_ table: LuaSlot) -> Int {
        guard table.isTable else { return 0 }
        return Int(clamping: lua_rawlen(L, table.index))
    }

    /// How many entries the table has (0 for anything but a table).
    public func count(_ table: LuaSlot) -> Int {
        var count = 0
        forEach(table) { _, _ in count += 1 }
        return count
    }

    /// Each entry of the table, in the table's own order (not `pairs`' sorted one); the
    /// key and value are on the stack while `body` runs. `body` must not push to stay.
    public func forEach(_ table: LuaSlot, _ body: (_ key: LuaSlot, _ value: LuaSlot) throws -> Void) rethrows {
        guard table.isTable, lua_checkstack(L, 3) != 0 else { return }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        lua_pushnil(L)
        while lua_next(L, table.index) != 0 {
            try body(LuaSlot(L, top + 1), LuaSlot(L, top + 2))
            lua_settop(L, top + 1)
        }
    }

    /// Each entry of the table, in the table's own order; where `body` answers true, the
    /// key and value stay on the stack, at the slots `body` was given, until the
    /// `restoring` around this ends (values read from there, no key looked up again).
    /// False when the stack had no room to keep an entry (that one and those after it
    /// did not stay).
    @discardableResult
    public func forEach(_ table: LuaSlot, keeping body: (_ key: LuaSlot, _ value: LuaSlot) throws -> Bool) rethrows -> Bool {
        guard table.isTable, lua_checkstack(L, 3) != 0 else { return true }
        var kept = true
        lua_pushnil(L)
        while lua_next(L, table.index) != 0 {
            let top = lua_gettop(L)
            // A table value as every slot a reader pushes holds one: where its fields are kept.
            if lua_type(L, top) == LUA_TTABLE { clua_see_through(L, top) }
            let keep = try body(LuaSlot(L, top - 1), LuaSlot(L, top))
            lua_settop(L, top)
            if keep, kept, lua_checkstack(L, 3) != 0 {
                lua_pushvalue(L, -2)  // the key again, to go on from
            } else {
                if keep { kept = false }
                clua_pop(L, 1)
            }
        }
        return kept
    }

    /// The table's keys in the order scripts see with `pairs` (as `LuaState.entries`), each
    /// as a `LuaValue` and as itself on the stack (to read its field with `field(_:key:)`:
    /// a string key that is not UTF-8 is not the `LuaValue`'s repaired one), while `body`
    /// runs: for the rare tables whose keys are not all plain strings.
    public func withKeys<T>(_ table: LuaSlot, _ body: ([(value: LuaValue, slot: LuaSlot)]) throws -> T) rethrows -> T {
        try restoring {
            var keys: [(value: LuaValue, slot: LuaSlot)] = []
            if table.isTable, lua_checkstack(L, 3) != 0 {
                lua_pushnil(L)
                while lua_next(L, table.index) != 0 {
                    // The value popped, the key kept where it is and copied to go on from.
                    clua_pop(L, 1)
                    keys.append((state.value(at: -1), LuaSlot(L, lua_gettop(L))))
                    guard lua_checkstack(L, 3) != 0 else { break }
                    lua_pushvalue(L, -1)
                }
            }
            return try body(keys.sorted { LuaValue.keyOrder($0.value, $1.value) })
        }
    }

    /// Pushes `table[key]`, the key being a slot.
    public func field(_ table: LuaSlot, key: LuaSlot) -> LuaSlot {
        guard table.isTable, key.index != 0, lua_checkstack(L, 2) != 0 else { return LuaSlot(L, 0) }
        lua_pushvalue(L, key.index)
        return pushed(lua_rawget(L, table.index))
    }

    /// The slot's value as a `LuaValue` (a table, function, userdata or coroutine by a
    /// registry reference): for the rare reads a `LuaValue` serves.
    public func value(_ slot: LuaSlot) -> LuaValue {
        slot.index == 0 ? .nil : state.value(at: slot.index)
    }
}

extension LuaState {
    /// Runs `body` with a reader and `value` on the stack (a table: where its fields are
    /// kept); the stack is as it was after.
    public func reading<T>(_ value: LuaValue, _ body: (LuaStackReader, LuaSlot) throws -> T) rethrows -> T {
        let reader = LuaStackReader(self)
        return try reader.restoring { try body(reader, reader.push(value)) }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether these bytes (a string read off the stack) are exactly `name`'s: a field
    /// name the host knows, told without making a `String`.
    public func holds(_ name: StaticString) -> Bool {
        name.utf8CodeUnitCount == count && (0..<count).allSatisfy { name.utf8Start[$0] == self[$0] }
    }
}

import CLua
import CLuaSupport

/// The body of a Swift function callable from Lua. It reads its arguments from the
/// call, pushes its results, and returns how many it pushed:
///
///     lua.register("double", in: lua.globals) { call in
///         call.push(.integer(try call.integer(1) * 2))
///     }
///
/// It must never raise a Lua error itself: throwing `LuaCall.Failure` (or any error)
/// makes the C trampoline raise it after this Swift frame has returned.
public typealias LuaFunctionBody = (LuaCall) throws -> Int

/// One call of a Swift function from Lua: typed access to its arguments and a way to
/// push results. Argument errors read like Lua's own:
/// `bad argument #1 to 'blink' (number expected, got nil)`.
public struct LuaCall {
    @usableFromInline let L: OpaquePointer
    /// The state the function belongs to.
    public unowned(unsafe) let state: LuaState

    /// Why a call failed, raised in Lua once the Swift frame is gone.
    public enum Failure: Error {
        /// "bad argument #n to 'f' (message)".
        case argument(Int, String)
        /// A message prefixed with the calling script's "file:line: ".
        case message(String)
        /// Any Lua value as the error object, raised as it is.
        case value(LuaValue)
    }

    /// How many arguments the script passed.
    public var count: Int { Int(lua_gettop(L)) }

    /// The argument as a `LuaValue` (nil when absent).
    public func value(_ i: Int) -> LuaValue { state.value(at: Int32(i), on: L) }

    /// Lua's type name of the argument ("no value" when absent).
    public func typeName(_ i: Int) -> String {
        lua_type(L, Int32(i)) == LUA_TNONE ? "no value" : String(cString: clua_typename(L, Int32(i)))
    }

    public func isNil(_ i: Int) -> Bool { lua_type(L, Int32(i)) <= LUA_TNIL }

    func expected(_ i: Int, _ what: String) -> Failure {
        .argument(i, "\(what) expected, got \(typeName(i))")
    }

    /// An integer argument; a float with an exact integer value (or a numeric string)
    /// is accepted, as by Lua's own `luaL_checkinteger`.
    @inlinable
    public func integer(_ i: Int) throws -> Int64 {
        var isInteger: Int32 = 0
        let n = lua_tointegerx(L, Int32(i), &isInteger)
        if isInteger != 0 { return Int64(n) }
        return try nonIntegerArgument(i)
    }

    @usableFromInline
    func nonIntegerArgument(_ i: Int) throws -> Int64 {
        let index = Int32(i)
        guard lua_type(L, index) == LUA_TNUMBER else { throw expected(i, "number") }
        let d = clua_tonumber(L, index)
        guard let exact = Int64(exactly: d) else { throw Failure.argument(i, "number has no integer representation") }
        return exact
    }

    public func optionalInteger(_ i: Int) throws -> Int64? { isNil(i) ? nil : try integer(i) }

    /// A number argument (integer or float).
    public func number(_ i: Int) throws -> Double {
        guard lua_type(L, Int32(i)) == LUA_TNUMBER else { throw expected(i, "number") }
        return clua_tonumber(L, Int32(i))
    }

    public func optionalNumber(_ i: Int) throws -> Double? { isNil(i) ? nil : try number(i) }

    /// A string argument (numbers are not converted: rule APIs are typed).
    public func string(_ i: Int) throws -> String {
        guard let s = state.string(at: Int32(i), on: L) else { throw expected(i, "string") }
        return s
    }

    public func optionalString(_ i: Int) throws -> String? { isNil(i) ? nil : try string(i) }

    /// Lua truthiness of the argument.
    public func boolean(_ i: Int) -> Bool { lua_toboolean(L, Int32(i)) != 0 }

    /// A table argument, by reference.
    public func table(_ i: Int) throws -> LuaRef {
        guard lua_type(L, Int32(i)) == LUA_TTABLE else { throw expected(i, "table") }
        return state.makeRef(at: Int32(i), on: L)
    }

    public func optionalTable(_ i: Int) throws -> LuaRef? { isNil(i) ? nil : try table(i) }

    /// A function argument, by reference.
    public func function(_ i: Int) throws -> LuaRef {
        guard lua_type(L, Int32(i)) == LUA_TFUNCTION else { throw expected(i, "function") }
        return state.makeRef(at: Int32(i), on: L)
    }

    // MARK: Results

    /// Pushes one result and returns 1, so a body can end with `return call.push(x)`.
    @discardableResult
    public func push(_ value: LuaValue) -> Int {
        if lua_checkstack(L, 1) == 0 { return 0 }
        state.push(value, on: L)
        return 1
    }

    /// Pushes an integer result without building a `LuaValue`.
    @inlinable @discardableResult
    public func push(_ value: Int64) -> Int {
        lua_pushinteger(L, lua_Integer(value))
        return 1
    }

    /// Pushes several results and returns their count.
    public func push(_ values: [LuaValue]) -> Int {
        if lua_checkstack(L, Int32(values.count)) == 0 { return 0 }
        for value in values { state.push(value, on: L) }
        return values.count
    }
}

extension LuaCall {
    /// "file:line" of the Lua function `level` frames up (1 = the caller of this
    /// host function), skipping frames that are not script code; nil if there is none.
    public func location(level: Int = 1) -> (file: String, line: Int)? {
        var ar = lua_Debug()
        var current = Int32(level)
        while lua_getstack(L, current, &ar) != 0 {
            if lua_getinfo(L, "Sl", &ar) != 0, ar.currentline > 0, let source = ar.source, source.pointee == 64 /* @ */ {
                let file = String(cString: source + 1)
                if file != LuaState.preludeChunkName && !file.hasPrefix("dicehost-") {
                    return (state.fullChunkName(file), Int(ar.currentline))
                }
            }
            current += 1
        }
        return nil
    }
}

import CLua

extension LuaState {
    /// What a Lua function declares of its parameters: their names (in order) and
    /// whether it also takes `...`. Nil for a value that is not a Lua function (a C
    /// function declares nothing). Reads the prototype only: nothing runs, nothing raises.
    public struct Parameters: Sendable, Equatable {
        public var names: [String]
        public var isVararg: Bool
    }

    public func parameters(of function: LuaValue) -> Parameters? {
        guard case .function = function else { return nil }
        push(function)
        // lua_getlocal with a NULL debug record names a function's parameters (the
        // function stays on the stack); ">u" then pops it and reads its counts.
        var names: [String] = []
        var n: Int32 = 1
        while let name = lua_getlocal(L, nil, n) {
            names.append(String(cString: name))
            n += 1
        }
        var info = lua_Debug()
        guard lua_getinfo(L, ">uS", &info) != 0 else { return nil }
        if let what = info.what, String(cString: what) == "C" { return nil }
        // A function loaded without debug info (the host's own chunks) names no
        // parameters; it still has them, named "?" here as Lua names what it cannot.
        while names.count < Int(info.nparams) { names.append("?") }
        return Parameters(names: Array(names.prefix(Int(info.nparams))), isVararg: info.isvararg != 0)
    }
}

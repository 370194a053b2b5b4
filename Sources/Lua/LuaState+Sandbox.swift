import CLua
import CLuaSupport
import Foundation

/// The sandbox a rule script runs in: an allow-list of the standard library, with the
/// few functions that could escape, stall or break determinism replaced.
extension LuaState {
    static let baseFunctions = [
        "assert", "error", "getmetatable", "ipairs", "next", "pcall", "rawequal", "rawget",
        "rawlen", "rawset", "select", "tonumber", "tostring", "type", "xpcall", "_VERSION",
    ]
    static let copiedLibraries = ["table", "math", "utf8", "coroutine", "string"]
    static let removedFromString = ["dump"]
    static let preludeChunkName = "dicehost-prelude"

    func installSandbox() throws {
        clua_open_safe_libraries(L)
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }

        clua_newtable(L)                                   // the sandbox environment
        let env = lua_gettop(L)
        clua_getglobaltable(L)
        let real = lua_gettop(L)

        for name in Self.baseFunctions { copyField(name, from: real, to: env) }
        lua_getfield(L, real, "tostring")
        rawToStringReference = clua_ref(L)
        // Lua's raw next, but over a look's stand-in the real table's fields (look.c).
        lua_pushcclosure(L, clua_raw_next, 0)
        rawNextReference = clua_ref(L)
        for name in ["setmetatable", "getmetatable", "rawset", "rawget", "rawlen", "xpcall", "tostring", "tonumber"] where clua_has_wrapper(name) != 0 {
            lua_getfield(L, real, name)
            clua_wrap_top(L, name)
            lua_setfield(L, env, name)
        }
        for name in ["pairs", "next", "collectgarbage", "warn"] {
            clua_push_sandbox_function(L, name)
            lua_setfield(L, env, name)
        }
        lua_getfield(L, real, "load")
        lua_pushvalue(L, env)
        clua_push_sandboxed_load(L)
        lua_setfield(L, env, "load")

        // Each library is a copy; its functions that work in C on sizes a script
        // chooses (strings, tables, patterns) are wrapped to charge that work.
        for library in Self.copiedLibraries {
            lua_getfield(L, real, library)
            let source = lua_gettop(L)
            clua_newtable(L)
            let copy = lua_gettop(L)
            lua_pushnil(L)
            while lua_next(L, source) != 0 {
                if lua_type(L, -2) == LUA_TSTRING, let name = string(at: -2), clua_has_wrapper("\(library).\(name)") != 0 {
                    clua_wrap_top(L, "\(library).\(name)")
                    clua_name_top(L, "\(library).\(name)")
                }
                lua_pushvalue(L, -2)
                clua_insert(L, -2)
                lua_rawset(L, copy)
            }
            lua_setfield(L, env, library)
            clua_pop(L, 1)
        }
        lua_getfield(L, env, "string")
        let string = lua_gettop(L)
        for name in Self.removedFromString {
            lua_pushnil(L)
            lua_setfield(L, string, name)
        }
        // Strings index the sandbox's string table. getmetatable("") answers a read-only
        // table whose __index is that table, as in Lua; the real metatable stays hidden.
        clua_pushliteral_empty(L)
        lua_getmetatable(L, -1)
        lua_pushvalue(L, string)
        lua_setfield(L, -2, "__index")
        // Its arithmetic reads strings as numbers, work by their length: charged.
        for event in ["__add", "__sub", "__mul", "__div", "__mod", "__pow", "__idiv", "__unm"] {
            lua_getfield(L, -1, event)
            if lua_type(L, -1) == LUA_TFUNCTION, clua_has_wrapper("string-arithmetic.\(event)") != 0 {
                clua_wrap_top(L, "string-arithmetic.\(event)")
                lua_setfield(L, -2, event)
            } else {
                clua_pop(L, 1)
            }
        }
        clua_newtable(L)
        lua_pushvalue(L, string)
        lua_setfield(L, -2, "__index")
        clua_seal(L, -1, "the string metatable")
        lua_setfield(L, -2, "__metatable")
        lua_settop(L, string - 1)

        lua_getfield(L, env, "math")
        for name in ["random", "randomseed"] {
            clua_push_sandbox_function(L, "math." + name)
            lua_setfield(L, -2, name)
        }
        clua_pop(L, 1)
        // Light C functions have no creation serial: pairs orders them, and tostring
        // prints them, by the name they have here.
        clua_name_functions(L, env)

        lua_pushvalue(L, env)
        lua_setfield(L, env, "_G")
        lua_pushvalue(L, env)
        sandboxReference = clua_ref(L)
        clua_newtable(L)
        loadedModulesReference = clua_ref(L)
        lua_settop(L, top)

        try installPrelude()
    }

    private func copyField(_ name: String, from source: Int32, to destination: Int32) {
        lua_getfield(L, source, name)
        lua_setfield(L, destination, name)
    }

    /// `print` and `require`, written in Lua over two host functions; the prelude's
    /// locals keep its helpers out of the scripts' reach.
    private func installPrelude() throws {
        let write = function { [unowned self] call in
            try self.output(try call.string(1))
            return 0
        }
        let loadModule = function { [unowned self] call in
            let name = try call.string(1)
            let path: String
            do { path = try self.modulePath(for: name) } catch let LuaCall.Failure.message(problem) {
                return call.push([.nil, .string(problem)])
            }
            let shownPath = self.moduleChunkDirectory.flatMap { try? self.modulePath(for: name, in: $0) } ?? path
            guard FileManager.default.fileExists(atPath: path) else {
                return call.push([.nil, .string("module '\(name)' not found: no file '\(shownPath)'")])
            }
            guard LuaSourceFile.isInside(path, directory: self.moduleDirectory ?? ".") else {
                return call.push([.nil, .string("module '\(name)' not found: '\(path)' leads outside the rules' folder")])
            }
            let data: Data
            do { data = try LuaSourceFile.read(path, limit: self.limits.memoryBytes) } catch {
                return call.push([.nil, .string("module '\(name)': \(error)")])
            }
            self.noteSourceFile(chunkName: shownPath, path: path)
            let status = data.withUnsafeBytes { raw in
                self.loadChunk(call.L, UnsafeBufferPointer(start: raw.bindMemory(to: UInt8.self).baseAddress, count: raw.count),
                               chunkName: shownPath)
            }
            guard status == LUA_OK else { return 1 } // the syntax error as a string, raised by the prelude
            if !self.loadedModulePaths.contains(path) { self.loadedModulePaths.append(path) }
            return call.push(.string(path)) + 1
        }
        let prelude = String(decoding: PackageResources.dicehost_prelude_lua, as: UTF8.self)
        let chunk = try loadHostChunk(prelude, chunkName: Self.preludeChunkName)
        let env = globals
        clua_getref(L, loadedModulesReference)
        let loaded = makeRef(at: -1)
        clua_pop(L, 1)
        let concat = get(env, "table").tableRef.map { get($0, "concat") } ?? .nil
        let results = try call(.function(chunk), [
            write, loadModule, .table(loaded), get(env, "tostring"), get(env, "select"),
            concat, get(env, "type"), get(env, "error"),
        ], budget: nil)
        set(env, "print", results[0])
        set(env, "require", results[1])
    }

    /// `require "race"` → "<module directory>/race.lua"; `require "lib.util"` →
    /// "<dir>/lib/util.lua". Only names of letters, digits, `_`, `-` and dots.
    func modulePath(for name: String) throws -> String {
        try modulePath(for: name, in: moduleDirectory)
    }

    func modulePath(for name: String, in folder: String?) throws -> String {
        guard let directory = folder else {
            throw LuaCall.Failure.message("module '\(name)' not found: require finds only rule scripts beside the loaded one")
        }
        let allowed = name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty, allowed, !parts.contains(where: \.isEmpty) else {
            throw LuaCall.Failure.message("bad module name '\(name)': use letters, digits, '_', '-' and dots")
        }
        let relative = parts.joined(separator: "/") + ".lua"
        return directory.isEmpty || directory == "." ? relative : directory + "/" + relative
    }

    /// Forgets modules loaded with `require`, so a reload reads them again.
    public func forgetLoadedModules() {
        clua_getref(L, loadedModulesReference)
        let loaded = makeRef(at: -1)
        clua_pop(L, 1)
        for (key, _) in entries(loaded) { set(loaded, key, .nil) }
        loadedModulePaths = []
    }
}

import CLua

extension LuaState {
    /// Turns the error object a failed protected call left on top of the stack into a
    /// `LuaError`, classifying it by status and by what the context saw (a tripped
    /// budget, an interrupt, a refused allocation).
    func errorFromTop(status: Int32) -> LuaError {
        let traceback = takeTraceback()
        let c = context.pointee
        let kind: LuaError.Kind
        switch status {
        case LUA_ERRSYNTAX: kind = .syntax
        case LUA_ERRMEM: kind = .memory
        case LUA_ERRERR: kind = .errorInHandler
        default:
            if c.budget_tripped != 0 { kind = .instructionBudget }
            else if c.interrupted != 0 { kind = .interrupted }
            else if c.memory_refused != 0, string(at: -1)?.hasSuffix("not enough memory") == true { kind = .memory }
            else { kind = .runtime }
        }
        var error = LuaError(kind: kind, luaMessage: describeErrorObject(at: lua_gettop(L)), traceback: traceback)
        switch kind {
        case .memory:
            error.message = "not enough memory: the script reached its memory cap of \(limits.memoryBytes) bytes"
            if error.file == nil, c.last_line > 0 {
                error.file = lastSampledSource()
                error.line = Int(c.last_line)
            }
        case .instructionBudget, .interrupted:
            if c.last_line > 0 {
                error.file = lastSampledSource()
                error.line = Int(c.last_line)
            }
            if kind == .interrupted { error.message = "interrupted"; break }
            error.message = "instruction budget exceeded: the script ran more than \(c.budget_total) instructions"
                + " without returning (an endless loop?)"
        default:
            break
        }
        restoreFullChunkName(&error)
        return error
    }

    /// Lua writes a long chunk name as "...tail"; put back the full name it came from.
    func restoreFullChunkName(_ error: inout LuaError) {
        if let file = error.file { error.file = fullChunkName(file) }
    }

    func fullChunkName(_ file: String) -> String {
        guard file.hasPrefix("...") else { return file }
        let tail = file.dropFirst(3)
        return chunkNames.first(where: { $0.hasSuffix(tail) }) ?? file
    }

    private func lastSampledSource() -> String {
        withUnsafeBytes(of: context.pointee.last_source) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    private func takeTraceback() -> String? {
        lua_getfield(L, clua_registryindex(), CLUA_TRACEBACK_KEY)
        defer {
            clua_pop(L, 1)
            lua_pushnil(L)
            lua_setfield(L, clua_registryindex(), CLUA_TRACEBACK_KEY)
        }
        return string(at: -1)
    }

    /// A readable message for any error object: strings and numbers as they are; other
    /// values through their `__tostring` (run protected, under a small budget, since it
    /// may itself fail or loop), or "(error object is a table value)".
    func describeErrorObject(at index: Int32) -> String {
        switch lua_type(L, index) {
        case LUA_TSTRING: return string(at: index) ?? ""
        case LUA_TNUMBER: return value(at: index).description
        case LUA_TNIL: return "(error object is a nil value)"
        default: break
        }
        let typeName = String(cString: clua_typename(L, index))
        guard luaL_getmetafield(L, index, "__tostring") != LUA_TNIL else {
            return "(error object is a \(typeName) value)"
        }
        clua_pop(L, 1)
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        clua_getref(L, rawToStringReference)
        lua_pushvalue(L, index)
        let saved = context.pointee
        clua_arm_budget(L, 1_000_000)
        let status = clua_pcall(L, 1, 1)
        clua_disarm_budget(L)
        context.pointee.budget_armed = saved.budget_armed
        context.pointee.budget_tripped = saved.budget_tripped
        context.pointee.budget_total = saved.budget_total
        context.pointee.budget_remaining = saved.budget_remaining
        context.pointee.interrupted = saved.interrupted
        clua_resume_budget(L)
        if status == LUA_OK, lua_type(L, -1) == LUA_TSTRING, let text = string(at: -1) {
            return text
        }
        return "(error object is a \(typeName) value whose __tostring failed)"
    }
}

import CLua
import CLuaSupport

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
        var error = LuaError(kind: kind, luaMessage: describeErrorObject(at: lua_gettop(L)), traceback: traceback,
                             messageIsString: lua_type(L, -1) == LUA_TSTRING)
        switch kind {
        case .memory where c.stack_refused != 0:
            error.kind = .runtime
            error.message = "stack overflow: the script needed more than \(CLUA_MAX_STACK_SLOTS) stack slots"
                + " (endless recursion, or a __call metamethod that calls itself)"
            locateAtLastSample(&error, replacing: false)
        case .memory:
            error.message = "not enough memory: the script reached its memory cap of \(limits.memoryBytes) bytes"
            locateAtLastSample(&error, replacing: false)
        case .instructionBudget, .interrupted:
            error.message = budgetMessage(kind)
            locateAtLastSample(&error, replacing: true)
        default:
            break
        }
        restoreFullChunkName(&error)
        return error
    }

    /// The error of an input whose budget is spent, at the line the script was running.
    func spentBudgetError() -> LuaError {
        let kind: LuaError.Kind = context.pointee.budget_tripped != 0 ? .instructionBudget : .interrupted
        var error = LuaError(kind: kind, message: budgetMessage(kind))
        locateAtLastSample(&error, replacing: true)
        restoreFullChunkName(&error)
        return error
    }

    private func budgetMessage(_ kind: LuaError.Kind) -> String {
        if kind == .interrupted { return "interrupted" }
        return "instruction budget exceeded: the input ran more than \(context.pointee.budget_total) instructions"
            + " (C work included) without finishing (an endless loop?)"
    }

    private func locateAtLastSample(_ error: inout LuaError, replacing: Bool) {
        guard context.pointee.last_line > 0, replacing || error.file == nil else { return }
        error.file = lastSampledSource()
        error.line = Int(context.pointee.last_line)
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
        // A spent budget is not renewed to run a script's __tostring.
        if clua_budget_spent(context) != 0 { return "(error object is a \(typeName) value)" }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        clua_getref(L, rawToStringReference)
        lua_pushvalue(L, index)
        let status: Int32
        if context.pointee.budget_armed != 0 {
            status = clua_pcall(L, 1, 1) // charged to the input it belongs to
        } else {
            clua_arm_budget(L, 1_000_000, 1)
            status = clua_pcall(L, 1, 1)
            clua_disarm_budget(L)
        }
        if status == LUA_OK, lua_type(L, -1) == LUA_TSTRING, let text = string(at: -1) {
            return text
        }
        return "(error object is a \(typeName) value whose __tostring failed)"
    }
}

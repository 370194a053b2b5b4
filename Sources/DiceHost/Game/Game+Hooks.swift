import Lua

/// Calling the rule table's hooks: read once per load, called with `g.now` current and
/// Lua's errors turned into the game's.
extension Game {
    func call(_ function: LuaValue, _ arguments: [LuaValue]) throws {
        syncClock()
        do { try lua.call(function, arguments) } catch let error as LuaError { throw GameError.script(error) }
    }

    /// Shows the host's clock to the scripts as `g.now` (written only when it moved).
    func syncClock() {
        if clockSeenByLua != host.now {
            lua.set(g, "now", .integer(Int64(host.now)))
            clockSeenByLua = host.now
        }
    }

    func callHook(_ hook: LuaValue, _ arguments: [LuaValue]) throws {
        guard case .function = hook else { return }
        try call(hook, arguments)
    }

    /// A game with `secret_rolls` and no `view` hook gets the prelude's view that hides the
    /// other players' last rolls (`secret_rolls_view`): without it the default view -
    /// everything - would show every cup to every seat and bot (invariant 6).
    func readHooks() {
        var view = lua.get(rulesTable, "view")
        if rules.secretRolls, view.typeName != "function", let exports = api.exports.tableRef {
            view = lua.get(exports, "secret_rolls_view")
        }
        hooks = Hooks(setup: lua.get(rulesTable, "setup"), turn: lua.get(rulesTable, "turn"),
                      roll: lua.get(rulesTable, "roll"), bot: lua.get(rulesTable, "bot"), status: lua.get(rulesTable, "status"),
                      view: view)
        // Provable from the prototype alone: a function without a second parameter or
        // `...` has no way to reach the viewer it is called with.
        if let parameters = lua.parameters(of: view) {
            hooks.viewIgnoresViewer = parameters.names.count <= 1 && !parameters.isVararg
        }
    }
}

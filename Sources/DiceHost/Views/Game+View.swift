import Lua

/// What one player (or a spectator) may see of the game: the rules' `view(g, viewer)`
/// hook, called with the viewer's player table (nil for a spectator). Without the hook
/// everything is visible: `g.state` and the players - except in a game with
/// `secret_rolls`, whose view is then the prelude's `secret_rolls_view` (the same, with
/// the other players' `last_roll` shown as a hidden cup; see `readHooks`). Secrecy is
/// this one function; the REPL's `view NAME`, `play --seat`, the server, fair bots (the
/// fast simulation's too) and best play all read the game through it.
extension Game {
    /// Whether the game has a view (the rules' `view` hook, or the one `secret_rolls`
    /// brings): then players see different things, and bots decide from their view.
    public var hasView: Bool {
        if case .function = hooks.view { return true }
        return false
    }

    /// The view of `viewer` (a player's name; nil: a spectator) as JSON. Runs under the
    /// budget on a read-only game: a hook that writes to `g` fails, naming the field.
    public func view(for viewer: String?) throws -> JSONValue {
        try checkViewer(viewer)
        return try leavingUnchanged(restoringLua: true) {
            var encoder = ViewEncoder(lua: lua)
            return encoder.encode(try viewValue(for: viewer))
        }
    }

    /// The view as the REPL prints it: one line per field of the view's table, in
    /// `pairs` order (`cup: ⚂ ⚄ ⚅`, `others: {Bob=(5 dice hidden)}`).
    public func viewLines(for viewer: String?) throws -> [String] {
        try checkViewer(viewer)
        return try leavingUnchanged(restoringLua: true) {
            let value = try viewValue(for: viewer)
            var renderer = StateRenderer(lua: lua)
            guard case .table(let t) = value, lua.length(t) == 0 else { return [renderer.line("", value)] }
            let fields = lua.entries(t).prefix(StateRenderer.entriesPerTable)
            if fields.isEmpty { return ["{}"] }
            return fields.map { key, v in
                renderer.line((key.stringValue ?? "[\(key)]") + ": ", v)
            }
        }
    }

    /// The hook's result, or the whole game without one. Only valid until the game
    /// changes (callers read it at once, inside `leavingUnchanged` or a bot's move). Between
    /// inputs the hook runs on a read-only game (`readOnlyLook`): a view that writes to `g`
    /// fails, naming the field. Inside an input (a fair bot's view) it runs on `g` itself,
    /// as the input's other hooks do, and the input's rollback covers it: read-only
    /// stand-ins there cost a Snap bot's move a quarter more (release, bench/README).
    func viewValue(for viewer: String?) throws -> LuaValue {
        if inTransaction, !lua.isLooking { return try plainViewValue(for: viewer) }
        return try readOnlyLook { try plainViewValue(for: viewer) }
    }

    private func plainViewValue(for viewer: String?) throws -> LuaValue {
            guard hasView else {
                let players = lua.makeTable(array: playerTables)
                return .table(lua.makeTable(fields: [("state", lookField("state")), ("players", .table(players))]))
            }
            let p: LuaValue = viewer.map { player($0) } ?? .nil
            syncClock()
            do {
                return try lookingAs("view hook", "a view") { try lua.call(hooks.view, [.table(g), p]).first ?? .nil }
            } catch let error as LuaError {
                throw GameError.script(error)
            }
    }

    func checkViewer(_ viewer: String?) throws {
        if let viewer, !playerNames.contains(viewer) {
            throw GameError.refused("no player '\(viewer)' (players: \(playerNames.joined(separator: ", ")))")
        }
    }
}

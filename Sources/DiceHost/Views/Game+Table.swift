import Lua

/// The table a front end draws for one seat: the rules' optional `table(v, t)` hook, a
/// small vocabulary (a headline, the last thing that happened, whose turn, a countdown,
/// a track to a target, a pot and balances, cups, cards; see `TableEncoder` and
/// docs/scripting.md, "The table").
///
/// Secrecy by construction: the hook is never given `g`. It gets `v`, the viewer's view
/// (the rules' `view(g, viewer)`, or the whole game in a game without one - a game that
/// keeps nothing secret), and `t`, facts every seat may know or this seat was told: its
/// name, the players, whose turn, the outcome, the clock, the params, the lines said to
/// this seat and the dice shown to it. So a table shows no more than its seat's view.
extension Game {
    /// Whether the rules have a `table` hook.
    public var hasTable: Bool {
        if case .function = lua.get(rulesTable, "table") { return true }
        return false
    }

    /// The most say lines `t.said` holds, and how far back the facts look for them.
    static let tableSaidLines = 8
    static let tableEventsScanned = 2_000

    /// The table of `viewer` (a player's name; nil: a spectator) as JSON, nil without the
    /// hook. Runs under the budget on a read-only game (`readOnlyLook`): the hook's `v`
    /// and `t.params` are read-only too. A failing hook, a write to what it is given or a
    /// result outside the vocabulary throws, naming the field.
    public func table(for viewer: String?) throws -> JSONValue? {
        let hook = lua.get(rulesTable, "table")
        guard case .function = hook else { return nil }
        try checkViewer(viewer)
        return try leavingUnchanged(restoringLua: true) {
            return try tableValue(hook, view: try viewValue(for: viewer), for: viewer) { try $0.encode($1) }
        }
    }

    /// What one seat is shown of this moment, its view and its table (nil without a
    /// `table` hook), from one call of the view hook in one look at the game: a server
    /// makes both for every seat after every input. Both hooks run on a
    /// read-only game, as by `view(for:)` and `table(for:)`. A failing view fails both (a
    /// table is made from the view).
    public func viewAndTable(for viewer: String?) -> (view: Result<JSONValue, any Error>, table: Result<JSONValue, any Error>?) {
        look(for: viewer, Self.asValues)
    }

    /// `viewAndTable(for:)` as JSON texts (the values' `description`), written straight
    /// from what the hooks returned: what a server sends.
    public func viewAndTableText(for viewer: String?) -> (view: Result<String, any Error>, table: Result<String, any Error>?) {
        look(for: viewer, Self.asTexts)
    }

    /// How a look's view and table are written: as values, or as JSON texts.
    struct LookEncoding<View, Table> {
        var view: (inout ViewEncoder, LuaValue) -> View
        var table: (TableEncoder, LuaValue) throws -> Table
    }
    static var asValues: LookEncoding<JSONValue, JSONValue> { LookEncoding(view: { $0.encode($1) }, table: { try $0.encode($1) }) }
    static var asTexts: LookEncoding<String, String> { LookEncoding(view: { $0.encodeText($1) }, table: { try $0.encodeText($1) }) }

    private func look<View, Table>(for viewer: String?, _ encoding: LookEncoding<View, Table>)
        -> (view: Result<View, any Error>, table: Result<Table, any Error>?) {
        let hook = lua.get(rulesTable, "table")
        let hasTable: Bool
        if case .function = hook { hasTable = true } else { hasTable = false }
        do { try checkViewer(viewer) } catch { return (.failure(error), hasTable ? .failure(error) : nil) }
        return leavingUnchanged(restoringLua: true) {
            let value: LuaValue
            do { value = try viewValue(for: viewer) } catch { return (.failure(error), hasTable ? .failure(error) : nil) }
            var encoder = ViewEncoder(lua: lua)
            let view = encoding.view(&encoder, value)
            guard hasTable else { return (.success(view), nil) }
            return (.success(view), Result { try tableValue(hook, view: value, for: viewer, encoding.table) })
        }
    }

    /// Whether every seat's view is the same: the game has no `view` hook (everyone sees
    /// the whole game), or one that cannot read its viewer (`view(g)`: one parameter, no
    /// `...`). Then `viewsAndTables` calls the hook once for all seats.
    public var viewIsTheSameForEveryone: Bool { !hasView || hooks.viewIgnoresViewer }

    /// A look for each of `viewers`: the same as `viewAndTable(for:)` for each, in order,
    /// but when every seat's view is the same (`viewIsTheSameForEveryone`) the view hook
    /// runs and its result is encoded once (a served Snap input made four equal
    /// views). The table hook still runs per seat (its `t` is the seat's own), each given
    /// the same read-only `v`: no seat's table can hold what another's hook wrote.
    public func viewsAndTables(for viewers: [String?]) -> [(view: Result<JSONValue, any Error>, table: Result<JSONValue, any Error>?)] {
        looks(for: viewers, Self.asValues)
    }

    /// `viewsAndTables(for:)` as JSON texts (the values' `description`), written straight
    /// from what the hooks returned: what a server sends after every input.
    public func viewsAndTablesText(for viewers: [String?]) -> [(view: Result<String, any Error>, table: Result<String, any Error>?)] {
        looks(for: viewers, Self.asTexts)
    }

    private func looks<View, Table>(for viewers: [String?], _ encoding: LookEncoding<View, Table>)
        -> [(view: Result<View, any Error>, table: Result<Table, any Error>?)] {
        guard viewIsTheSameForEveryone, viewers.count > 1 else { return viewers.map { look(for: $0, encoding) } }
        let hook = lua.get(rulesTable, "table")
        let hasTable: Bool
        if case .function = hook { hasTable = true } else { hasTable = false }
        for viewer in viewers {
            do { try checkViewer(viewer) } catch { return viewers.map { look(for: $0, encoding) } }
        }
        return leavingUnchanged(restoringLua: true) {
            let value: LuaValue
            do { value = try viewValue(for: nil) } catch {
                return viewers.map { _ in (.failure(error), hasTable ? .failure(error) : nil) }
            }
            var encoder = ViewEncoder(lua: lua)
            let view = encoding.view(&encoder, value)
            guard hasTable else { return viewers.map { _ in (.success(view), nil) } }
            // Every seat's table hook is given the same `v`: read-only, as `g` is, so no
            // seat's table can hold what another's hook wrote.
            // What `t` says of the log is the same for every seat when every event it reads
            // is for everyone: read once (the seats still get a `t` each).
            let told = TableTold(publicIn: self)
            return viewers.map { viewer in
                leavingUnchanged(restoringLua: false) {
                    (.success(view), Result { try tableValue(hook, view: value, for: viewer, told: told, encoding.table) })
                }
            }
        }
    }

    /// The `table` hook's result for `viewer`, given its view, encoded by `encodeTable`.
    /// `told`: what `t` says of the log, when it was read once for every seat.
    /// When every seat's view is the same (`viewIsTheSameForEveryone`) a server makes it
    /// once and gives it to every seat's hook, so `v` is read-only (no seat's table can
    /// hold what another's hook wrote), here too. Else `v` is this seat's own, made in this
    /// look, and only the tables of `g` in it (stand-ins already) are read-only: wrapping
    /// the rest cost Liar's Dice's looks a fifth more (release, bench/README).
    private func tableValue<Table>(_ hook: LuaValue, view: LuaValue, for viewer: String?, told: TableTold? = nil,
                                   _ encodeTable: (TableEncoder, LuaValue) throws -> Table) throws -> Table {
        let facts = try tableFacts(for: viewer, told: told)
        let result: LuaValue
        do {
            result = try lookingAs("table hook", "a table hook") {
                try lua.call(hook, [viewIsTheSameForEveryone ? lua.readOnly(view, as: "v") : view, .table(facts)]).first ?? .nil
            }
        } catch let error as LuaError {
            throw GameError.script(error)
        }
        return try encodeTable(TableEncoder(lua: lua, location: rules.location), result)
    }

    /// What `t` says of the log: the last lines said to the seat and the dice shown to it
    /// since the last roll, read from the events since the game's start (at most
    /// `tableEventsScanned`, newest first).
    struct TableTold {
        var said: [String] = []
        var shown: [(player: String, values: [Int])] = []
        /// How many events were read (what reading them is charged).
        var scanned = 0

        init(_ events: [GameEvent], for viewer: String?) {
            let start = Self.start(of: events)
            scanned = events.count - start
            // Newest first: the last lines said, and the dice shown since the last roll.
            var rolled = false
            for event in events[start...].reversed() {
                // What `seen(by:)` gives this seat, told without making it (a copy of each
                // event, for every seat after every input): the whole event when it is for
                // everyone or for this seat; else a roll as a hidden roll, nothing of the rest.
                let whole = event.audience.map { audience in viewer.map { audience.contains($0) } ?? false } ?? true
                switch event.kind {
                case .say(let text) where whole && said.count < Game.tableSaidLines: said.append(text)
                case .roll: rolled = true
                case .hiddenRoll where whole: rolled = true
                case .reveal(let player, let roll) where whole && !rolled && !shown.contains(where: { $0.player == player }):
                    shown.append((player, roll.values))
                default: break
                }
                // Past a roll, with the lines full, no older event adds anything: the rest
                // is not read (it is still charged as read, as the whole scan always was).
                if rolled && said.count >= Game.tableSaidLines { break }
            }
            said.reverse()
        }

        /// The same for every seat: nil when an event read is for some players only.
        init?(publicIn game: Game) {
            let events = game.events
            guard !events[Self.start(of: events)...].contains(where: { $0.audience != nil }) else { return nil }
            self.init(events, for: nil)
        }

        static func start(of events: [GameEvent]) -> Int {
            max(events.lastIndex { if case .start = $0.kind { return true } else { return false } } ?? 0,
                events.count - Game.tableEventsScanned)
        }
    }

    /// `t`: what every seat may know, and what this seat was told (its events only).
    func tableFacts(for viewer: String?, told: TableTold? = nil) throws -> LuaRef {
        let told = told ?? TableTold(events, for: viewer)
        try lua.charge(told.scanned)
        // Made in the order the tables always were (the cups shown first), so each gets the
        // identity it had: a hook that prints one sees the same.
        let cups: [(String, LuaValue)] = told.shown.map { player, values in
            (player, .table(lua.makeTable(array: values.map { .integer(Int64($0)) })))
        }
        let players = lua.makeTable(array: playerNames.map { .string($0) })
        let said = lua.makeTable(array: told.said.map { .string($0) })
        let shown = lua.makeTable(fields: cups)
        var fields: [(String, LuaValue)] = [
            ("players", .table(players)),
            ("said", .table(said)),
            ("shown", .table(shown)),
            ("now", .integer(Int64(host.now))),
            ("over", .boolean(isOver)),
            ("params", lookField("params")),
        ]
        if let viewer { fields.append(("you", .string(viewer))) }
        if let current = currentPlayer, !isOver { fields.append(("current", .string(current))) }
        switch outcome {
        case .win(let p)?: fields.append(("winner", .string(p)))
        case .loss(let p)?: fields.append(("loser", .string(p)))
        case .draw?: fields.append(("draw", .boolean(true)))
        case nil: break
        }
        return lua.makeTable(fields: fields)
    }
}

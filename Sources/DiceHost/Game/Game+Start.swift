import Foundation
import Lua

/// Starting a game: the players checked, `g` made, `setup` and the first turn; a restart;
/// the next game of a simulation worker.
extension Game {
    /// Starts a new game with the same players, params and rules (and a fresh seed
    /// derived from the old one, so a replay stays exact).
    public func restart() throws {
        let saved = checkpoint()
        do {
            host = HostState()
            host.device.keepConnection(of: saved.host.device) // a new game on the same die
            restarts += 1
            try start()
        } catch {
            rollBack(to: saved)
            throw error
        }
        if transactional { pushUndo(UndoPoint(checkpoint: saved, snapshot: [])) }
    }

    /// Starts a fresh game in the same Lua state, its generator seeded with `seed`: what
    /// a simulation worker does between games. The same seed gives the same game as a
    /// new `Game` made with that seed (`dicehost play --seed` replays it). The old game's
    /// events and metrics are dropped.
    public func startNewGame(seed: UInt64) throws {
        host = HostState()
        eventLog.removeAll(keepingCapacity: true)
        forgottenEvents = 0
        recordedMetrics.removeAll(keepingCapacity: true)
        undoStack.removeAll()
        try start(seed: seed)
    }

    func validatePlayers() throws {
        guard (rules.minPlayers...rules.maxPlayers).contains(playerNames.count) else {
            throw GameError.invalidRules("\(rules.name) needs \(rules.minPlayers == rules.maxPlayers ? "\(rules.minPlayers)" : "\(rules.minPlayers) to \(rules.maxPlayers)") players, got \(playerNames.count)", location: nil)
        }
        guard Set(playerNames).count == playerNames.count, !playerNames.contains(where: \.isEmpty) else {
            throw GameError.invalidRules("player names must be distinct and non-empty: \(playerNames.joined(separator: ","))", location: nil)
        }
    }

    /// Builds `g`, runs `setup`, and starts the first turn (unless setup did).
    func start(seed explicitSeed: UInt64? = nil) throws {
        lua.random.seed(explicitSeed ?? (restarts == 0 ? seed : seed &+ 0x9E37_79B9_7F4A_7C15 &* UInt64(restarts)))
        let template = startTemplate ?? makeStartTemplate()
        if playsLoopsInLua {
            do {
                _ = try lua.callWatched(api.startGame, [.table(template.names), .table(template.params), hooks.setup, hooks.turn])
            } catch let error as LuaError {
                throw GameError.script(error)
            }
            return
        }
        // A new game is one input: making g, setup and the first turn share a budget.
        try withInputBudget {
            let made = try lua.call(api.newGame, [.table(template.names), .table(template.params)], budget: .some(nil))
            guard made.count == 2, let newG = made[0].tableRef, let players = made[1].tableRef else {
                throw GameError.refused("cannot create the game table")
            }
            adopt(g: newG, players: players)
            if recordsEvents { logStart(GameEvent(time: 0, kind: .start(players: playerNames, seed: explicitSeed ?? seed))) }
            try transaction(undoable: false) {
                try callHook(hooks.setup, [.table(g)])
                try beginFirstTurn(seat: lua.get(g, path: "current", "seat").intValue)
            }
        }
    }

    /// Logs a game's start. What the script printed while it loaded was logged before
    /// there was a game: it follows the start line (the log begins with `start`).
    private func logStart(_ start: GameEvent) {
        let started = eventLog.records.contains { if case .start = $0.kind { return true } else { return false } }
        guard !started, !eventLog.records.isEmpty else { return eventLog.append(start) }
        let loadOutput = eventLog.records
        eventLog.removeAll(keepingCapacity: true)
        eventLog.append(start)
        for event in loadOutput { eventLog.append(event) }
    }

    /// Makes `g` and its players the game's (the tables hooks and host functions see).
    func adopt(g newG: LuaRef, players: LuaRef) {
        g = newG
        lastSnapshot = nil
        playerTables = lua.array(players)
        clockSeenByLua = nil
    }

    /// After setup: unless setup passed the turn or ended the game, the current player
    /// (`seat`, from g.current) begins.
    func beginFirstTurn(seat: Int?) throws {
        guard host.pendingTurn == nil, !isOver, let seat else { return }
        guard isSeat(seat) else { throw badCurrentSeat(.integer(Int64(seat))) }
        host.pendingTurn = seat
    }

    /// Loads and validates a rule script and starts a game at the smallest table the
    /// rules allow: what `dicehost check` reports.
    public static func check(rulesFile path: String, params: [(String, String)] = []) throws -> RuleSet {
        try Game(rulesFile: path, players: [], params: params).rules
    }

    func makeStartTemplate() -> (names: LuaRef, params: LuaRef) {
        let template = (names: lua.makeTable(array: playerNames.map { .string($0) }),
                        params: lua.makeTable(fields: rules.params.map { ($0.name, $0.value.luaValue) } + [("dice", .string(rules.dice.text))]))
        startTemplate = template
        return template
    }
}

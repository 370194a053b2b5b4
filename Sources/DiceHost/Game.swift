import Foundation
import Lua

/// A running game: a rule script loaded into its own sandboxed Lua state, players,
/// params and a seed. Every input (a roll, an action, moving the clock) is a
/// transaction: if a hook fails, the game and its log are exactly as before.
///
///     let game = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 7)
///     try game.roll()                    // the declared dice, from the game's generator
///     try game.roll(values: [6])         // given values
///     try game.roll(flag: .tilt)         // a roll the die flagged
///     try game.act("snap", by: "Bob")
///     try game.advance(by: 500)          // fire due timers
///     print(game.events.map(\.description))
public final class Game {
    public enum Outcome: Equatable, Sendable {
        case win(String)
        case draw
        /// A lone player lost (`g:lose(p)` in a one-player game).
        case loss(String)
    }

    /// Everything the host keeps outside Lua; copied for rollback (small: the growing
    /// event log and metrics live outside it and roll back by truncation).
    struct HostState {
        var now = 0
        var timers = TimerQueue()
        var nextTimerID = 1
        var led = LEDTimeline()
        var outcome: Outcome?
        var pendingTurn: Int?
        var rolls = 0
        var turns = 0
        var device = DeviceState()
    }

    struct ScheduledTimer {
        var id: Int
        var due: Int
        var interval: Int?
        var callback: LuaRef
    }

    public let lua: LuaState
    public internal(set) var rules: RuleSet
    public private(set) var playerNames: [String]
    public let seed: UInt64
    public let sourcePath: String
    /// How the rules file is named in error messages: `sourcePath`, or as a rule test
    /// names it (relative to the test), so a test reads the same from any folder.
    public let displayPath: String
    /// The `--set` overrides the game was made with.
    public let overrides: [(String, String)]

    /// Keep events (text, LED commands) for reading; simulations turn it off.
    public var recordsEvents = true {
        didSet { _ = try? lua.call(api.setQuiet, [.boolean(!recordsEvents)]) }
    }
    /// Snapshot before each input so a failing hook rolls back; simulations turn it off
    /// (a failing simulated game is abandoned, not repaired).
    public var transactional = true

    var host = HostState()
    var eventLog = HostRecords<GameEvent>()
    var recordedMetrics = HostRecords<(String, Double)>()
    var api: RuntimeAPI
    var rulesTable: LuaRef
    var g: LuaRef
    var declared: [(table: LuaRef, rules: RuleSet)] = []
    /// The hooks of the current rule table, read once per load (and per reload).
    var hooks = Hooks()
    /// The player tables, by seat - 1 (the same tables as g.players).
    var playerTables: [LuaValue] = []
    /// The player names and params each new `g` is made from (made again after a reload).
    var startTemplate: (names: LuaRef, params: LuaRef)?
    var clockSeenByLua: Int?

    struct Hooks {
        var setup: LuaValue = .nil, turn: LuaValue = .nil, roll: LuaValue = .nil, bot: LuaValue = .nil, status: LuaValue = .nil
    }
    var restarts = 0
    /// The copy of the tables under `g` taken when the last input ended: the next
    /// input's rollback point (nil until one is needed, or after `g` was replaced).
    var lastSnapshot: [LuaValue]?
    var undoStack: [UndoPoint] = []
    /// The Lua driver of fast simulations, loaded by the first one (FastSimulation.swift).
    var fastSimulation: FastSimulation?
    /// Counts the inputs that made an undo point (so a caller can tell whether one did).
    public private(set) var undoGeneration = 0
    var inTransaction = false
    /// Lets a game that keeps neither events nor undo points (a simulation's) start and
    /// play its bots' rolls inside Lua; off, it goes input by input (the reference).
    var allowsLoopsInLua = true
    var playsLoopsInLua: Bool { allowsLoopsInLua && !recordsEvents && !transactional }

    /// Loads a rule script and starts a game.
    public convenience init(rulesFile path: String, players: [String], seed: UInt64 = 0,
                            params: [(String, String)] = [], limits: LuaLimits = .default, displayPath: String? = nil) throws {
        let data: Data
        do { data = try LuaSourceFile.read(path, limit: limits.memoryBytes) } catch let problem as LuaSourceFile.Problem {
            throw GameError.invalidRules("cannot read rule script \(displayPath ?? path): \(problem.reason)", location: nil)
        }
        try self.init(source: String(decoding: data, as: UTF8.self), path: path, players: players, seed: seed,
                      params: params, limits: limits, displayPath: displayPath)
    }

    /// Loads a rule script from text; `path` names it in errors and locates `require`.
    /// With no players, the smallest table the rules allow sits down (P1, P2, …).
    /// `displayPath` names the script (and the folder of the scripts it requires) in
    /// error messages instead of `path`.
    public init(source: String, path: String, players: [String], seed: UInt64 = 0,
                params: [(String, String)] = [], limits: LuaLimits = .default, displayPath: String? = nil) throws {
        lua = try LuaState(limits: limits)
        lua.moduleDirectory = (path as NSString).deletingLastPathComponent
        if let displayPath { lua.moduleChunkDirectory = (displayPath as NSString).deletingLastPathComponent }
        sourcePath = path
        self.displayPath = displayPath ?? path
        playerNames = players
        self.seed = seed
        overrides = params
        api = RuntimeAPI.placeholder
        rulesTable = lua.newTable()
        g = lua.newTable()
        rules = RuleSet(name: "", minPlayers: 1, maxPlayers: 1, dice: try DiceNotation("1d6"), params: [], actions: [], hooks: [], location: path)
        lua.output = { [unowned self] text in
            try self.reserveEvent(.say(text), for: "print")
            self.log(.say(text))
        }
        api = try installLibraries()
        (rules, rulesTable) = try withInputBudget { try loadRules(source: source) }
        declared.removeAll()
        readHooks()
        if playerNames.isEmpty { playerNames = (1...rules.minPlayers).map { "P\($0)" } }
        try validatePlayers()
        try start()
    }

    // MARK: Reading the game

    public var events: [GameEvent] { eventLog.records }
    public var now: Int { host.now }
    public var outcome: Outcome? { host.outcome }
    public var isOver: Bool { host.outcome != nil }
    public var rollCount: Int { host.rolls }
    public var turnCount: Int { host.turns }
    public var metrics: [(String, Double)] { recordedMetrics.records }
    public var led: LEDTimeline { host.led }

    /// The player whose turn it is.
    public var currentPlayer: String? {
        guard case .string(let name) = lua.get(g, path: "current", "name") else { return nil }
        return name
    }

    /// `g.state` as a Lua value (read it with `lua.get`/`lua.entries`).
    public var state: LuaValue { lua.get(g, "state") }
    /// The player table of `name` (scripts may add fields freely).
    public func player(_ name: String) -> LuaValue {
        guard let index = playerNames.firstIndex(of: name), playerTables.indices.contains(index) else { return .nil }
        return playerTables[index]
    }
    /// The `g` table scripts see.
    public var gameTable: LuaRef { g }

    // MARK: Inputs

    /// A roll for `player` (default: the current player): given values, or the
    /// declared dice from the game's generator; a flagged roll carries no values.
    public func roll(values: [Int]? = nil, flag: Roll.Flag = .ok, by player: String? = nil) throws {
        try transaction {
            let seat = try self.seat(of: player)
            if player != nil { try checkTurn(seat: seat, input: "roll") }
            let dice = rules.dice
            var roll: Roll
            if flag != .ok {
                roll = Roll(values: [], total: 0, flag: flag)
            } else if let values {
                guard values.count == dice.count else {
                    throw GameError.refused("roll needs \(dice.count) value\(dice.count == 1 ? "" : "s") for \(dice), got \(values.count)")
                }
                if let bad = values.first(where: { !dice.dieValues.contains($0) }) {
                    throw GameError.refused("a \(dice.sides)-sided die cannot show \(bad)")
                }
                roll = Roll(values: values, total: dice.total(of: values))
            } else {
                let values = dice.roll { lua.random.integer(in: $0) }
                roll = Roll(values: values, total: dice.total(of: values))
            }
            host.rolls += 1
            host.device.awaitingRoll = !roll.ok // the die rolls again after a flagged roll (see Game+Device)
            log(.roll(player: playerNames[seat - 1], roll: roll))
            var arguments: [LuaValue] = [hooks.roll, .table(g), try playerValue(seat), .integer(Int64(roll.total)), .string(roll.flag.rawValue)]
            for value in roll.values { arguments.append(.integer(Int64(value))) }
            try call(api.rollInput, arguments)
        }
    }

    /// A named action from the rules' `actions` table, by `player` (default: current).
    public func act(_ name: String, by player: String? = nil, arguments: [LuaValue] = []) throws {
        try transaction {
            guard case .table(let actions) = lua.get(rulesTable, "actions"), case .function(let f) = lua.get(actions, .string(name)) else {
                let known = rules.actions.isEmpty ? "this game has none" : "this game has: " + rules.actions.joined(separator: ", ")
                throw GameError.refused("unknown action '\(name)' (\(known))")
            }
            let seat = try self.seat(of: player)
            if player != nil { try checkTurn(seat: seat, input: name) }
            try call(.function(f), [.table(g), try playerValue(seat)] + arguments)
        }
    }

    /// Moves the game clock forward, firing due timers in order (equal deadlines in
    /// the order they were set).
    public func advance(by milliseconds: Int) throws {
        guard milliseconds >= 0 else { throw GameError.refused("time cannot go backwards (\(milliseconds) ms)") }
        try transaction(allowWhenOver: true) {
            let target = try clockTarget(after: milliseconds)
            while !isOver, let next = host.timers.first, next.due <= target {
                host.now = next.due
                guard var fired = host.timers.popFirst() else { break }
                if let interval = fired.interval {
                    let (due, overflow) = fired.due.addingReportingOverflow(max(interval, 1))
                    fired.due = overflow ? Int.max : due
                    host.timers.append(fired)
                }
                do {
                    try lua.charge(Self.timerFiringCost)
                    try call(.function(fired.callback), [.table(g)])
                    try drainPendingTurns()
                } catch let error where lua.budgetSpent {
                    throw unsettledTimers(fired, cause: error)
                }
            }
            host.now = target
        }
    }

    /// Host work one timer firing is charged, in instruction-equivalents: a chain of
    /// timers that re-arm at once ends within the input's budget, not never.
    static let timerFiringCost = 500
    /// Host work one turn pass is charged (the turn hook's own instructions count too).
    static let turnPassCost = 500

    /// The error of a tick whose timers kept firing until its budget ran out.
    func unsettledTimers(_ timer: ScheduledTimer, cause: Error) -> GameError {
        guard case .script(let error)? = cause as? GameError ?? (cause as? LuaError).map(GameError.script),
              error.kind == .instructionBudget else { return cause as? GameError ?? .refused("\(cause)") }
        let definition = lua.definition(of: timer.callback)
        let origin = definition.map { " (its function is at \($0.file):\($0.line))" } ?? ""
        var settled = error
        if settled.file == nil, let definition { (settled.file, settled.line) = (definition.file, definition.line) }
        settled.message = "the timers did not settle: timer \(timer.id)\(origin) was firing at \(host.now) ms of game time"
            + " when the input ran out of its budget; the input was rolled back"
        return .script(settled)
    }

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
        recordedMetrics.removeAll(keepingCapacity: true)
        undoStack.removeAll()
        try start(seed: seed)
    }

    // MARK: Internals

    /// Runs one input - its hooks, timers and turn passes - under one instruction budget,
    /// with rollback of both the Lua data and the host state when it fails. The copy of
    /// `g` taken when the input ends is the next input's rollback point; an input after
    /// which that copy cannot be taken (the state grew past the memory cap) is refused.
    func transaction(allowWhenOver: Bool = false, undoable: Bool = true, _ body: () throws -> Void) throws {
        if isOver && !allowWhenOver {
            throw GameError.refused("the game is over (\(outcomeText)); use restart to play again")
        }
        guard transactional, !inTransaction else {
            try withInputBudget {
                try body()
                try drainPendingTurns()
            }
            return
        }
        let saved = checkpoint()
        let before = try currentSnapshot()
        inTransaction = true
        defer { inTransaction = false }
        let after: [LuaValue]
        do {
            after = try withInputBudget { () -> [LuaValue] in
                try body()
                try drainPendingTurns()
                return try takeSnapshot(after: true)
            }
        } catch {
            lua.withoutBudget { _ = try? lua.call(api.restore, before, budget: .some(nil)) }
            rollBack(to: saved)
            lastSnapshot = before
            throw error
        }
        lastSnapshot = after
        if undoable { pushUndo(UndoPoint(checkpoint: saved, snapshot: before)) }
    }

    /// Runs one input's work under one budget, with Lua's errors as the game's.
    func withInputBudget<T>(_ body: () throws -> T) throws -> T {
        do { return try lua.withBudget(.none, body) } catch let error as LuaError { throw GameError.script(error) }
    }

    /// The rollback point of the next input: the copy taken when the last one ended.
    func currentSnapshot() throws -> [LuaValue] {
        if let lastSnapshot { return lastSnapshot }
        let snapshot = try lua.withoutBudget { try takeSnapshot(after: false) }
        lastSnapshot = snapshot
        return snapshot
    }

    /// Copies every table reachable from `g` (values, keys, metatables). When memory is
    /// short, the undo history goes first; then the input that grew the state is refused.
    func takeSnapshot(after input: Bool) throws -> [LuaValue] {
        // The copies are the host's, never the script's: they take no identities.
        let serial = lua.creationSerial
        defer { lua.creationSerial = serial }
        do {
            return try lua.call(api.snapshot, [.table(g)], budget: .some(nil))
        } catch let error as LuaError where error.kind == .memory && !undoStack.isEmpty {
            undoStack.removeAll()
            lua.collectGarbage()
            return try takeSnapshot(after: input)
        } catch let error as LuaError where error.kind == .memory {
            throw GameError.refused(input
                ? "the game state grew too large to keep a copy for rollback and undo (the memory cap is \(lua.limits.memoryBytes) bytes); the input was rolled back"
                : "the game state is too large to keep a copy for rollback (the memory cap is \(lua.limits.memoryBytes) bytes)")
        }
    }

    /// The state before an input, to go back to with `undo`.
    struct UndoPoint {
        var checkpoint: Checkpoint
        var snapshot: [LuaValue]
    }

    func pushUndo(_ point: UndoPoint) {
        undoGeneration += 1
        undoStack.append(point)
        if undoStack.count > Self.undoDepth { undoStack.removeFirst(undoStack.count - Self.undoDepth) }
    }

    /// How many inputs `undo` can take back.
    public static let undoDepth = 200
    /// Whether there is an input to undo.
    public var canUndo: Bool { !undoStack.isEmpty }

    /// Puts the game back as it was before the last input (roll, action, clock move or
    /// restart): Lua data, host state, timers, log and the random generator. The rules
    /// stay as they are (a reload is not undone).
    public func undo() throws {
        guard let point = undoStack.popLast() else { throw GameError.refused("nothing to undo") }
        if !point.snapshot.isEmpty {
            lua.withoutBudget { _ = try? lua.call(api.restore, point.snapshot, budget: .some(nil)) }
        }
        rollBack(to: point.checkpoint)
        lastSnapshot = point.snapshot.isEmpty ? nil : point.snapshot
    }

    /// What the host needs to undo an input, besides the Lua tables under `g`.
    struct Checkpoint {
        var host: HostState
        var eventCount: Int
        var metricCount: Int
        var random: [UInt64]
        var g: LuaRef
        var playerTables: [LuaValue]
        var restarts: Int
        /// Identities of tables made from here on (see `LuaState.creationSerial`).
        var creationSerial: UInt64
    }

    func checkpoint() -> Checkpoint {
        Checkpoint(host: host, eventCount: eventLog.count, metricCount: recordedMetrics.count,
                   random: lua.random.state, g: g, playerTables: playerTables, restarts: restarts,
                   creationSerial: lua.creationSerial)
    }

    /// Runs host work that must leave the game exactly as it was - a status line, the
    /// `state` view - and puts it back: the host state, the identities new tables get,
    /// and with `restoringLua`, everything under `g` (from the copy the last input left),
    /// so a hook that writes while it should only look changes nothing.
    func leavingUnchanged<T>(restoringLua: Bool, _ body: () throws -> T) rethrows -> T {
        let saved = checkpoint()
        defer {
            if restoringLua, let lastSnapshot {
                lua.withoutBudget { _ = try? lua.call(api.restore, lastSnapshot, budget: .some(nil)) }
                clockSeenByLua = nil
            }
            host = saved.host
            eventLog.removeSubrange(saved.eventCount...)
            recordedMetrics.removeSubrange(saved.metricCount...)
            lua.random.state = saved.random
            lua.creationSerial = saved.creationSerial
        }
        return try body()
    }

    func rollBack(to saved: Checkpoint) {
        host = saved.host
        eventLog.removeSubrange(saved.eventCount...)
        recordedMetrics.removeSubrange(saved.metricCount...)
        lua.random.state = saved.random
        if g != saved.g { g = saved.g; lastSnapshot = nil }
        clockSeenByLua = nil // a restore put g.now back as it was
        playerTables = saved.playerTables
        restarts = saved.restarts
        lua.creationSerial = saved.creationSerial
    }

    var outcomeText: String {
        switch host.outcome {
        case .win(let p)?: return "\(p) won"
        case .draw?: return "a draw"
        case .loss(let p)?: return "\(p) lost"
        case nil: return "in progress"
        }
    }

    func log(_ kind: @autoclosure () -> GameEvent.Kind) {
        if recordsEvents { eventLog.append(GameEvent(time: host.now, kind: kind())) }
    }

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

    /// Turns one input may pass on before the game calls it a loop (here and in the
    /// prelude's simulation loop).
    static let turnPassLimit = 1000

    /// Runs the turn hook for each `g:next_turn` a hook asked for.
    func drainPendingTurns() throws {
        var guardCount = 0
        while let seat = host.pendingTurn, !isOver {
            host.pendingTurn = nil
            guardCount += 1
            if guardCount > Self.turnPassLimit {
                throw GameError.refused("the turn hook passed the turn \(Self.turnPassLimit) times without waiting for input")
            }
            try lua.charge(Self.turnPassCost)
            let player = try playerValue(seat)
            host.turns += 1
            host.device.awaitingRoll = true // a turn begins: roll updates on (see Game+Device)
            log(.turn(player: playerNames[seat - 1]))
            try callHook(hooks.turn, [.table(g), player])
        }
    }

    func playerValue(_ seat: Int) throws -> LuaValue {
        guard isSeat(seat) else { throw GameError.refused("no player in seat \(seat)") }
        return playerTables[seat - 1]
    }

    /// The seat (1-based) of a named player, or of the current one.
    func seat(of name: String?) throws -> Int {
        if let name {
            guard let index = playerNames.firstIndex(of: name) else {
                throw GameError.refused("no player named '\(name)' (players: \(playerNames.joined(separator: ", ")))")
            }
            return index + 1
        }
        return try currentSeat()
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
            if recordsEvents { eventLog.append(GameEvent(time: 0, kind: .start(players: playerNames, seed: explicitSeed ?? seed))) }
            try transaction(undoable: false) {
                try callHook(hooks.setup, [.table(g)])
                try beginFirstTurn(seat: lua.get(g, path: "current", "seat").intValue)
            }
        }
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
}

extension Game {
    /// Loads and validates a rule script and starts a game at the smallest table the
    /// rules allow: what `dicehost check` reports.
    public static func check(rulesFile path: String, params: [(String, String)] = []) throws -> RuleSet {
        try Game(rulesFile: path, players: [], params: params).rules
    }
}

extension Game {
    func makeStartTemplate() -> (names: LuaRef, params: LuaRef) {
        let template = (names: lua.makeTable(array: playerNames.map { .string($0) }),
                        params: lua.makeTable(fields: rules.params.map { ($0.name, $0.value.luaValue) } + [("dice", .string(rules.dice.text))]))
        startTemplate = template
        return template
    }

    func readHooks() {
        hooks = Hooks(setup: lua.get(rulesTable, "setup"), turn: lua.get(rulesTable, "turn"),
                      roll: lua.get(rulesTable, "roll"), bot: lua.get(rulesTable, "bot"), status: lua.get(rulesTable, "status"))
    }
}

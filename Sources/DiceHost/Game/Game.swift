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
    public var transactional = true {
        didSet { if !transactional, rollbackBase != nil { lastSnapshot = nil } }
    }

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
    /// The look hook running and what it is ("view hook", "a view"), for the error a
    /// game-changing method it calls raises (Game+Looks).
    var lookingHook: (hook: String, role: String)?
    /// The stand-ins of `g` and the player tables the last look used (Game+Looks).
    var keptLookRoots: LookRoots?

    struct Hooks {
        var setup: LuaValue = .nil, turn: LuaValue = .nil, roll: LuaValue = .nil, bot: LuaValue = .nil, status: LuaValue = .nil
        var view: LuaValue = .nil
        /// The view hook declares one parameter (`view(g)`) and no `...`: it cannot read
        /// its viewer, so every seat's view is the same and a server makes it once.
        var viewIgnoresViewer = false
    }
    var restarts = 0
    /// The copy of the tables under `g` the next input rolls back to (nil until one is
    /// needed, or after `g` was replaced): with undo history, taken when the last input
    /// ended; without, taken now and then, with `rollbackBase` saying how to get from it
    /// to the game as it is (Game+RollbackReplay).
    var lastSnapshot: [LuaValue]? {
        didSet { if lastSnapshot == nil { rollbackBase = nil } }
    }
    /// Without undo history: the host's state when `lastSnapshot` was taken and the
    /// inputs since, to replay after a failed input.
    var rollbackBase: RollbackBase?
    /// How often inputs fail after rule code ran, in 1024ths (Game+RollbackReplay).
    var rollbackRate = 0
    /// The typed input `perform` is running: the transaction it begins records it.
    var recordingInput: GameInput?
    var undoStack: [UndoPoint] = []
    /// Whether inputs can be undone (a copy of `g` kept for each of the last `undoDepth`).
    /// A served room has no `undo` and turns it off: those copies were most of its memory,
    /// and without them no input copies `g` (a failed one is replayed to, see
    /// Game+RollbackReplay).
    public var keepsUndoHistory = true {
        didSet { if keepsUndoHistory, rollbackBase != nil { lastSnapshot = nil } }
    }
    /// Whether the copy of `g` an input rolls back to is kept between inputs. Off, each
    /// input takes its copy when it begins and none is held between inputs. A server
    /// turns it off while a room is empty (6-15 KiB a room in Liar's Dice and Snap).
    /// Off, an input that grows the state past the memory cap is not refused when it ends
    /// (no copy is taken then): the next input is, when its copy cannot be taken.
    public var keepsRollbackCopy = true {
        didSet { if !keepsRollbackCopy, !inTransaction { lastSnapshot = nil } }
    }
    /// Events dropped from the front of the log by `forgetEvents`.
    public internal(set) var forgottenEvents = 0
    /// The Lua driver of fast simulations, loaded by the first one (FastSimulation.swift).
    var fastSimulation: FastSimulation?
    /// Counts the inputs that made an undo point (so a caller can tell whether one did).
    public internal(set) var undoGeneration = 0
    var inTransaction = false
    /// Lets a game that keeps neither events nor undo points (a simulation's) start and
    /// play its bots' rolls inside Lua; off, it goes input by input (the reference).
    var allowsLoopsInLua = true
    var playsLoopsInLua: Bool { allowsLoopsInLua && !recordsEvents && !transactional }

    /// Loads a rule script and starts a game.
    public convenience init(rulesFile path: String, players: [String], seed: UInt64 = 0,
                            params: [(String, String)] = [], limits: LuaLimits = .default, displayPath: String? = nil,
                            beforeRules: ((LuaState) throws -> Void)? = nil) throws {
        let data: Data
        do { data = try LuaSourceFile.read(path, limit: limits.memoryBytes) } catch let problem as LuaSourceFile.Problem {
            throw GameError.invalidRules("cannot read rule script \(displayPath ?? path): \(problem.reason)", location: nil)
        }
        // The file's bytes as they are: a byte that is not UTF-8 in a string literal
        // (a Latin-1 file) stays that byte, as in Lua.
        try self.init(sourceBytes: [UInt8](data), path: path, players: players, seed: seed,
                      params: params, limits: limits, displayPath: displayPath, beforeRules: beforeRules)
    }

    /// Loads a rule script from text; `path` names it in errors and locates `require`.
    /// With no players, the smallest table the rules allow sits down (P1, P2, …).
    /// `displayPath` names the script (and the folder of the scripts it requires) in
    /// error messages instead of `path`. `beforeRules` runs once the libraries are in
    /// place, before they become read-only and the script loads (exact odds watches a few of them).
    public convenience init(source: String, path: String, players: [String], seed: UInt64 = 0,
                            params: [(String, String)] = [], limits: LuaLimits = .default, displayPath: String? = nil,
                            beforeRules: ((LuaState) throws -> Void)? = nil) throws {
        try self.init(sourceBytes: Array(source.utf8), path: path, players: players, seed: seed,
                      params: params, limits: limits, displayPath: displayPath, beforeRules: beforeRules)
    }

    /// Loads a rule script from its bytes (see `init(source:…)`).
    init(sourceBytes source: [UInt8], path: String, players: [String], seed: UInt64 = 0,
                params: [(String, String)] = [], limits: LuaLimits = .default, displayPath: String? = nil,
                beforeRules: ((LuaState) throws -> Void)? = nil) throws {
        lua = try LuaState(limits: limits)
        lua.moduleDirectory = PathName.folder(of: path)
        if let displayPath { lua.moduleChunkDirectory = PathName.folder(of: displayPath) }
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
        api = try installLibraries(beforeFreezing: beforeRules)
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
}

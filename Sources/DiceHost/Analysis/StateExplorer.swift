import Foundation
import Lua

/// Explores a game's positions: see `StateGraph`.
final class StateExplorer {
    let game: Game
    let codec: StateCodec.Functions
    let timerMeta: LuaValue
    let graph = StateGraph()
    let maxStates: Int
    /// The most outcomes one roll may have (`--max-roll-outcomes`).
    let maxRollOutcomes: Int
    let progress: ((Int, Int) -> Void)?
    /// The host half of each position (timers, clock), by position.
    var hostOf: [Int32] = []
    var hostPositions: [HostPosition] = []
    var hostIndex: [String: Int32] = [:]
    var callbacks: [String: LuaRef] = [:]
    var metricIndex: [String: Int32] = [:]
    let fixedRandom: [UInt64]
    let outcomes: RollOutcomes
    /// g.players as one Lua array, made once (the player tables never change identity).
    let playerList: LuaRef

    struct HostPosition {
        var now: Int
        /// Pending timers in rank order: due − now, interval, callback key.
        var timers: [(delay: Int, interval: Int?, callback: String)]
    }

    let keepLastRoll: Bool
    let watch: OddsWatch
    /// Positions expanded so far (for the messages of a stop).
    var explored = 0

    /// `game` must have been made with `watch.install` as its `beforeRules`.
    var budget = ExplorationBudget(maxMemory: Int.max) {
        // The Lua heap holds every position's encoding: one sized for an analysis (a GiB
        // or more; `check`'s small look keeps its own) may grow as far as the process may,
        // so --max-memory is the one limit on memory an analysis meets.
        didSet {
            let heap = game.lua.limits.memoryBytes
            if budget.maxMemory != Int.max && heap >= 1 << 30 && budget.maxMemory > heap {
                game.lua.limits.memoryBytes = budget.maxMemory
            }
        }
    }
    /// Called with the progress line (positions per second, memory) every 0.2 s.
    var progressLine: ((String) -> Void)?

    init(game: Game, watch: OddsWatch, keepLastRoll: Bool, maxStates: Int, maxRollOutcomes: Int = Odds.defaultMaxRollOutcomes,
         progress: ((Int, Int) -> Void)?) throws {
        self.game = game
        self.watch = watch
        self.keepLastRoll = keepLastRoll
        self.maxStates = maxStates
        self.maxRollOutcomes = maxRollOutcomes
        self.progress = progress
        game.recordsEvents = false
        game.transactional = false
        game.allowsLoopsInLua = false
        let lua = game.lua
        codec = try StateCodec.load(into: lua)
        // The Timer metatable of the prelude: from a handle made and cancelled at once.
        let probe = try lua.load("local h = timer.after(0, function() end); local mt = getmetatable(h); h:cancel(); return mt",
                                 chunkName: StateCodec.chunkName)
        timerMeta = (try? lua.call(.function(probe), [], budget: .some(nil)).first) ?? .nil
        // The runtime's Roll and Card metatables, from a roll and a card made and dropped
        // (the roll's random draw undone).
        let drawn = lua.random.state
        let probeRoll = try lua.load("return getmetatable(dice.roll('1d6')), getmetatable(cards.deck()[1])", chunkName: StateCodec.chunkName)
        let rollAndCard = (try? lua.call(.function(probeRoll), [], budget: .some(nil))) ?? []
        lua.random.state = drawn
        fixedRandom = lua.random.state
        playerList = lua.makeTable(array: game.playerTables)
        let rawGet = lua.rawMetatableFunctions().get
        let gMeta = (try? lua.call(rawGet, [.table(game.g)], budget: .some(nil)).first) ?? .nil
        let fixedList = ([gMeta, timerMeta, watch.metatable(lua: lua)] + rollAndCard).filter { $0 != .nil }
        let standIns = try (1...max(1, game.playerTables.count)).map { try watch.standIn(seat: $0, lua: lua) }
        guard let exports = watch.exports else { throw OddsError.internal("the odds watch is not installed") }
        _ = try lua.call(codec.configure, [.table(lua.makeTable(array: fixedList)), .table(lua.makeTable(array: standIns)),
                                          lua.get(exports, "observed")], budget: .some(nil))
        let dice = game.rules.dice
        guard !dice.exploding else {
            throw OddsError.notAnalysable("the game's dice (\(dice)) explode, so a roll has unboundedly many outcomes")
        }
        try Self.checkOutcomes(of: dice, limit: maxRollOutcomes)
        outcomes = RollOutcomes(sides: dice.sides, count: dice.count, unordered: game.rules.unorderedDice)
        budget.whatGrows = { [weak self] in self?.growingFields() }
    }

    /// Refuses a roll of more outcomes than `limit`, naming the limit and its flag.
    static func checkOutcomes(of dice: DiceNotation, limit: Int) throws {
        let (total, overflow) = power(dice.sides, dice.count)
        guard !overflow, total <= limit else {
            throw OddsError.tooManyOutcomes(dice: dice.description, outcomes: overflow ? nil : total, limit: limit)
        }
    }

    /// Every outcome of a roll by `seat`: of the declared dice, or of the player's own
    /// (`p.dice`, `g.params.dice`: Liar's Dice loses dice).
    var outcomesByDice: [String: RollOutcomes] = [:]
    func rollOutcomes(seat: Int) throws -> RollOutcomes {
        let dice: DiceNotation
        do { dice = try game.dice(forSeat: seat) } catch { throw OddsError.ruleError("\(error)") }
        let declared = game.rules.dice
        if dice.count == declared.count && dice.sides == declared.sides && dice.exploding == declared.exploding { return outcomes }
        let key = "\(dice.count)d\(dice.sides)"
        if let known = outcomesByDice[key] { return known }
        guard !dice.exploding else {
            throw OddsError.notAnalysable("a player's dice (\(dice)) explode, so a roll has unboundedly many outcomes")
        }
        try Self.checkOutcomes(of: dice, limit: maxRollOutcomes)
        let made = RollOutcomes(sides: dice.sides, count: dice.count, unordered: game.rules.unorderedDice)
        outcomesByDice[key] = made
        return made
    }

    /// The outcomes of `count` dice rolled again after a keep, made once per count.
    lazy var rerolledOutcomes = RerolledOutcomes(unordered: game.rules.unorderedDice)
    func keptRollOutcomes(sides: Int, count: Int) -> RollOutcomes {
        rerolledOutcomes.outcomes(sides: sides, count: count)
    }

    /// Nanoseconds spent per phase, kept when DICEHOST_ODDS_PHASES is set (bench/odds.py
    /// prints them): where exploration time goes.
    var phases: [String: UInt64] = [:]
    let timesPhases = ProcessInfo.processInfo.environment["DICEHOST_ODDS_PHASES"] != nil
    func timed<T>(_ phase: String, _ body: () throws -> T) rethrows -> T {
        guard timesPhases else { return try body() }
        let start = DispatchTime.now().uptimeNanoseconds
        defer { phases[phase, default: 0] += DispatchTime.now().uptimeNanoseconds - start }
        return try body()
    }
    /// One position in this many has its first roll played twice (see `expand`).
    static let repeatEvery = 8

    static func power(_ base: Int, _ exponent: Int) -> (Int, Bool) {
        var result = 1
        for _ in 0..<exponent {
            let (next, overflow) = result.multipliedReportingOverflow(by: base)
            if overflow { return (0, true) }
            result = next
        }
        return (result, false)
    }

    // MARK: Exploring

    func explore() throws -> StateGraph {
        graph.droppedLastRoll = !keepLastRoll
        let lua = game.lua
        // The start must not depend on the seed.
        let started = lua.random.state
        lua.random.seed(game.seed)
        let seeded = lua.random.state
        if started != seeded {
            throw OddsError.notAnalysable("setup drew random numbers (math.random, dice.roll or cards.shuffle), so the starting position depends on the seed")
        }
        graph.initialTurns = game.host.turns
        for (name, value) in game.recordedMetrics.records { graph.initialMetrics.append((metricNumber(name), value)) }
        _ = try encodeCurrent()
        var next = 0
        var lastReport = DispatchTime.now().uptimeNanoseconds
        while next < graph.count {
            try expand(next)
            next += 1
            explored = next
            if next & 255 == 0 {
                let now = DispatchTime.now().uptimeNanoseconds
                if now - lastReport > 200_000_000 {
                    let line = try budget.check(explored: next, found: graph.count)
                    progress?(next, graph.count)
                    progressLine?(line)
                    lastReport = now
                }
            }
        }
        progress?(graph.count, graph.count)
        if timesPhases {
            let text = phases.sorted { $0.value > $1.value }.map { String(format: "%@ %.2f s", $0.key, Double($0.value) / 1e9) }
            FileHandle.standardError.write(Data(("odds phases: " + text.joined(separator: ", ") + "\n").utf8))
        }
        return graph
    }

    func metricNumber(_ name: String) -> Int32 {
        if let n = metricIndex[name] { return n }
        let n = Int32(graph.metricNames.count)
        graph.metricNames.append(name)
        metricIndex[name] = n
        return n
    }

    /// The position the live game is in: its number (0-based) and whether it is new.
    func encodeCurrent() throws -> (Int, Bool) {
        try timed("encode") { try encodeCurrentUntimed() }
    }

    /// What the codec is called with for the live position, and the host half of it.
    struct CodecCall {
        var arguments: [LuaValue]
        var hostKey: String
        var terminal: StateGraph.Terminal?
        var position: HostPosition
    }

    func codecCall() throws -> CodecCall {
        let lua = game.lua
        let host = game.host
        var hostKey: String
        var terminal: StateGraph.Terminal?
        var ranked: [Int] = []
        var position = HostPosition(now: host.now, timers: [])
        switch host.outcome {
        case .win(let name)?:
            let seat = (game.playerNames.firstIndex(of: name) ?? 0) + 1
            terminal = .win(seat: seat)
            hostKey = "win \(seat)"
        case .draw?:
            terminal = .draw
            hostKey = "draw"
        case .loss?:
            terminal = .loss
            hostKey = "loss"
        case nil:
            let timers = host.timers.pending.sorted { ($0.due, $0.id) < ($1.due, $1.id) }
            hostKey = "now \(host.now)"
            for timer in timers {
                guard let definition = lua.definition(of: timer.callback) else {
                    throw OddsError.notAnalysable("a timer's function is not a Lua function of the script")
                }
                let callback = "\(definition.file):\(definition.line)"
                if callbacks[callback] == nil { callbacks[callback] = timer.callback }
                let delay = timer.due - host.now
                position.timers.append((delay, timer.interval, callback))
                hostKey += " | \(delay) \(timer.interval.map(String.init) ?? "-") \(callback)"
                ranked.append(timer.id)
            }
        }
        var arguments: [LuaValue] = [.table(game.g), .table(playerList), timerMeta,
                                     .boolean(graph.droppedLastRoll), .string(hostKey), .boolean(terminal != nil)]
        arguments += ranked.map { .integer(Int64($0)) }
        return CodecCall(arguments: arguments, hostKey: hostKey, terminal: terminal, position: position)
    }

    /// The live position's key, unnumbered: statistics are forgotten in the live game first
    /// (`MoveExplorer.checkStatistics` compares keys of games it plays on the side).
    func currentKey() throws -> String {
        let call = try codecCall()
        do {
            guard case .string(let key)? = try game.lua.call(codec.keyOf, call.arguments, budget: .some(nil)).first else {
                throw OddsError.internal("the codec made no key")
            }
            return key
        } catch let error as LuaError {
            if error.message.hasPrefix("not analysable: ") { throw OddsError.notAnalysable(String(error.message.dropFirst(16))) }
            throw OddsError.internal("encoding a position: \(error)")
        }
    }

    /// From now on every position holds the starting values of `rules.statistics` (the
    /// live game must be at the start).
    func forgetStatistics() throws {
        let names = game.rules.statistics
        guard !names.isEmpty else { return }
        _ = try game.lua.call(codec.rememberStatistics, [.table(game.g), .table(playerList), .table(game.lua.makeTable(array: names.map { .string($0) }))],
                              budget: .some(nil))
        graph.forgotStatistics = names
    }

    func encodeCurrentUntimed() throws -> (Int, Bool) {
        let lua = game.lua
        let call = try codecCall()
        let (arguments, hostKey, terminal, position) = (call.arguments, call.hostKey, call.terminal, call.position)
        let result: [LuaValue]
        do {
            result = try timed("encode in Lua") { try lua.call(codec.encode, arguments, budget: .some(nil)) }
        } catch let error as LuaError {
            if error.message.hasPrefix("restart: ") { throw LastRollObserved() }
            if error.message.hasPrefix("not analysable: ") { throw OddsError.notAnalysable(String(error.message.dropFirst(16))) }
            if error.kind == .memory {
                throw OddsError.tooMuchMemory(String(format: "the Lua heap that holds the positions reached its limit of %.1f GiB (%@). "
                    + "The game may be too big to solve exactly here: try `dicehost sim`, fewer dice or a smaller param (--set ...), or raise --max-memory",
                    Double(game.lua.limits.memoryBytes) / 1073741824, budget.reached(explored: explored, found: graph.count)),
                    growth: growingFields())
            }
            throw OddsError.internal("encoding a position: \(error)")
        }
        guard result.count == 2, let number = result[0].intValue, case .boolean(let isNew) = result[1] else {
            throw OddsError.internal("the codec returned \(result)")
        }
        let index = number - 1
        if isNew {
            guard graph.count < maxStates else {
                throw OddsError.tooManyStates(maxStates, reached: budget.reached(explored: explored, found: graph.count),
                                              growth: growingFields())
            }
            guard index == graph.count else { throw OddsError.internal("positions numbered out of order") }
            graph.terminal.append(terminal)
            if let known = hostIndex[hostKey] {
                hostOf.append(known)
            } else {
                let n = Int32(hostPositions.count)
                hostPositions.append(position)
                hostIndex[hostKey] = n
                hostOf.append(n)
            }
        }
        return (index, isNew)
    }

    /// Puts position `index` back into the live game: decoded from its encoding, or
    /// (for the second and later outcomes of a roll) from a snapshot taken after decoding.
    func restore(_ index: Int, from snapshot: [LuaValue]? = nil) throws {
        try timed(snapshot == nil ? "decode" : "restore") { try restoreUntimed(index, from: snapshot) }
    }

    func restoreUntimed(_ index: Int, from snapshot: [LuaValue]? = nil) throws {
        let lua = game.lua
        do {
            if let snapshot {
                _ = try lua.call(game.api.restore, snapshot, budget: .some(nil))
            } else {
                _ = try lua.call(codec.decode, [.integer(Int64(index + 1)), .table(game.g), .table(playerList)], budget: .some(nil))
            }
        } catch {
            throw OddsError.internal("restoring position \(index + 1): \(error)")
        }
        let position = hostPositions[Int(hostOf[index])]
        var host = Game.HostState()
        host.now = position.now
        for (rank, timer) in position.timers.enumerated() {
            guard let callback = callbacks[timer.callback] else { throw OddsError.internal("a timer callback was lost") }
            host.timers.append(Game.ScheduledTimer(id: rank + 1, due: position.now + timer.delay, interval: timer.interval, callback: callback))
        }
        host.nextTimerID = position.timers.count + 1
        resetHostSide(to: host)
    }

    /// A copy of the live game's tables (`what` names it in an error).
    func snapshot(_ what: @autoclosure () -> String) throws -> [LuaValue] {
        do { return try game.lua.call(game.api.snapshot, [.table(game.g)], budget: .some(nil)) } catch {
            throw OddsError.internal("copying \(what()): \(error)")
        }
    }

    /// Puts a snapshot and a host state back in the live game (a game played on the side,
    /// which no position number names).
    func putBack(_ snapshot: [LuaValue], host: Game.HostState) throws {
        do { _ = try game.lua.call(game.api.restore, snapshot, budget: .some(nil)) } catch {
            throw OddsError.internal("restoring a sampled game: \(error)")
        }
        resetHostSide(to: host)
    }

    /// The host's half of a restored position: its timers and clock; no metrics recorded,
    /// the generator fixed.
    private func resetHostSide(to host: Game.HostState) {
        game.host = host
        game.clockSeenByLua = nil
        game.recordedMetrics.removeAll(keepingCapacity: true)
        game.lua.random.state = fixedRandom
    }

    /// What one step did, read off the game after it.
    func stepEffects(weight: Int32) {
        graph.rollsWeight[graph.rollsWeight.count - 1] += weight * Int32(game.host.rolls)
        graph.turnsWeight[graph.turnsWeight.count - 1] += weight * Int32(game.host.turns)
        for (name, value) in game.recordedMetrics.records {
            graph.metricEntries.append((metricNumber(name), weight, value))
        }
    }

    func checkRandom(_ what: @autoclosure () -> String) throws {
        if game.lua.random.state != fixedRandom {
            throw OddsError.notAnalysable("\(what()) drew random numbers (math.random, dice.roll or cards.shuffle): "
                + "the next position is not a function of the position and the roll")
        }
    }
}

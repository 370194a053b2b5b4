import Foundation
import Lua

/// Why exact odds cannot be computed for a game, or what went wrong trying.
public enum OddsError: Error, CustomStringConvertible {
    /// The rules do something that makes a position not a function of its state and the roll.
    case notAnalysable(String)
    /// More positions than `--max-states` (the limit, and how far the exploration got).
    case tooManyStates(Int, reached: String)
    /// The process grew past `--max-memory` (what it got to, and what to try).
    case tooMuchMemory(String)
    /// A rule hook failed in a reachable position.
    case ruleError(String)
    case `internal`(String)

    public var description: String {
        switch self {
        case .notAnalysable(let why): return "not analysable: \(why)"
        case .tooManyStates(let limit, let reached):
            return "the game has more than \(limit) positions (\(reached)): too many to solve exactly here; "
                + "raise --max-states, or estimate with `dicehost sim` instead (fewer dice or a smaller param may fit)"
        case .tooMuchMemory(let text): return text
        case .ruleError(let text): return "a rule hook failed in a reachable position: \(text)"
        case .internal(let text): return "internal error: \(text)"
        }
    }
}

/// Stops an exploration that grows past a memory budget, with a message that says how far
/// it got; and the progress line's figures (positions per second, growth).
struct ExplorationBudget {
    var maxMemory: Int
    let began = DispatchTime.now().uptimeNanoseconds

    /// The process's resident memory now (Linux: /proc/self/statm), 0 when unknown.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9 }

    /// How far an exploration got: "stopped after 2.1 s: 101 found, 37 explored (37%)".
    func reached(explored: Int, found: Int) -> String {
        String(format: "stopped after %.1f s: %d positions found, %d explored (%.0f%% of those found)",
               seconds(), found, explored, 100 * Double(explored) / Double(max(found, 1)))
    }

    /// Throws when over budget; otherwise the progress figures.
    func check(explored: Int, found: Int) throws -> String {
        let resident = Self.residentBytes()
        let elapsed = max(seconds(), 1e-9)
        let line = String(format: "%d positions found, %d explored, %.0f positions/s, %.0f MiB", found, explored,
                          Double(explored) / elapsed, Double(resident) / 1048576)
        if resident > maxMemory {
            throw OddsError.tooMuchMemory(String(format: "stopped at the memory budget (--max-memory %.1f GiB) after %.1f s: "
                + "%d positions found, %d explored (%.0f%% of those found), still growing. The game may be too big to solve "
                + "exactly here: try `dicehost sim`, fewer dice or a smaller param (--set ...), or raise --max-memory",
                Double(maxMemory) / 1073741824, elapsed, found, explored, 100 * Double(explored) / Double(max(found, 1))))
        }
        return line
    }
}

/// A hook looked into a player's last roll while positions left it out: explore again
/// with `keepLastRoll` (see `StateCodec`).
struct LastRollObserved: Error {}

/// The game's positions under its bots, as an absorbing Markov chain: found by putting
/// each position back into a live game (`StateCodec`), asking the bot what it does, and
/// for a roll forcing every outcome of the declared dice in turn.
///
/// Position numbers start at 1 (the start). A position is terminal (a win, a draw) or
/// transient with edges: target, weight out of the position's `denominator` (sides^dice
/// for a roll, 1 for an action), and what the step adds: rolls, turns, recorded metrics.
final class StateGraph {
    /// How a game ended: a seat won, a draw, or a lone player lost (nobody won).
    enum Terminal: Equatable { case win(seat: Int), draw, loss }

    /// Per position (index = number − 1): nil while unexplored or transient.
    var terminal: [Terminal?] = []
    /// Per position, its edges are edgeTarget[edgeStart[i]..<edgeStart[i + 1]] (transient only).
    var edgeStart: [Int] = [0]
    var edgeTarget: [Int32] = []
    var edgeWeight: [Int32] = []
    var denominator: [Int32] = []
    /// Per position, Σ weight × (rolls made, turns begun) over its edges.
    var rollsWeight: [Int32] = []
    var turnsWeight: [Int32] = []
    /// Per edge, the turns its step began (capped at 255), for the distribution of turns;
    /// outcomes that reach one position with different counts are separate edges.
    var edgeTurns: [UInt8] = []
    /// Per position, its metric records: metricEntries[metricStart[i]..<metricStart[i + 1]].
    var metricStart: [Int] = [0]
    var metricEntries: [(metric: Int32, weight: Int32, value: Double)] = []
    var metricNames: [String] = []
    /// What the start itself did: the first turn and any metric setup recorded.
    var initialTurns = 0
    var initialMetrics: [(metric: Int32, value: Double)] = []
    /// Whether the players' `last_roll` was left out of positions (see `StateCodec`).
    var droppedLastRoll = false

    var count: Int { terminal.count }
    var transitions: Int { edgeTarget.count }

    func edges(of state: Int) -> Range<Int> { edgeStart[state]..<edgeStart[state + 1] }
}

/// Explores a game's positions: see `StateGraph`.
final class StateExplorer {
    let game: Game
    let codec: StateCodec.Functions
    let timerMeta: LuaValue
    let graph = StateGraph()
    let maxStates: Int
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
    var budget = ExplorationBudget(maxMemory: Int.max)
    /// Called with the progress line (positions per second, memory) every 0.2 s.
    var progressLine: ((String) -> Void)?

    init(game: Game, watch: OddsWatch, keepLastRoll: Bool, maxStates: Int, progress: ((Int, Int) -> Void)?) throws {
        self.game = game
        self.watch = watch
        self.keepLastRoll = keepLastRoll
        self.maxStates = maxStates
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
        let (total, overflow) = Self.power(dice.sides, dice.count)
        guard !overflow, total <= Self.maxOutcomesPerRoll else {
            throw OddsError.notAnalysable("a roll of \(dice) has \(overflow ? "too many" : String(total)) outcomes; at most \(Self.maxOutcomesPerRoll) are followed")
        }
        outcomes = RollOutcomes(sides: dice.sides, count: dice.count, unordered: game.rules.unorderedDice)
    }

    static let maxOutcomesPerRoll = 46_656

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
        let (total, overflow) = Self.power(dice.sides, dice.count)
        guard !overflow, total <= Self.maxOutcomesPerRoll else {
            throw OddsError.notAnalysable("a roll of \(dice) has \(overflow ? "too many" : String(total)) outcomes; at most \(Self.maxOutcomesPerRoll) are followed")
        }
        let made = RollOutcomes(sides: dice.sides, count: dice.count, unordered: game.rules.unorderedDice)
        outcomesByDice[key] = made
        return made
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

    func encodeCurrentUntimed() throws -> (Int, Bool) {
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
        let result: [LuaValue]
        do {
            result = try timed("encode in Lua") { try lua.call(codec.encode, arguments, budget: .some(nil)) }
        } catch let error as LuaError {
            if error.message.hasPrefix("restart: ") { throw LastRollObserved() }
            if error.message.hasPrefix("not analysable: ") { throw OddsError.notAnalysable(String(error.message.dropFirst(16))) }
            throw OddsError.internal("encoding a position: \(error)")
        }
        guard result.count == 2, let number = result[0].intValue, case .boolean(let isNew) = result[1] else {
            throw OddsError.internal("the codec returned \(result)")
        }
        let index = number - 1
        if isNew {
            guard graph.count < maxStates else {
                throw OddsError.tooManyStates(maxStates, reached: budget.reached(explored: explored, found: graph.count))
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
        game.host = host
        game.clockSeenByLua = nil
        game.recordedMetrics.removeAll(keepingCapacity: true)
        lua.random.state = fixedRandom
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

    func expand(_ index: Int) throws {
        do { try expandPosition(index) } catch let error as OddsError {
            // A hook that failed after looking into a stand-in failed because of it.
            if !keepLastRoll && watch.observed(lua: game.lua) { throw LastRollObserved() }
            throw error
        }
    }

    func expandPosition(_ index: Int) throws {
        defer {
            graph.edgeStart.append(graph.edgeTarget.count)
            graph.metricStart.append(graph.metricEntries.count)
        }
        graph.rollsWeight.append(0)
        graph.turnsWeight.append(0)
        guard graph.terminal[index] == nil else { graph.denominator.append(1); return }
        try restore(index)
        let seat: Int
        do { seat = try game.seat(of: nil) } catch { throw OddsError.ruleError("\(error)") }
        let name = game.playerName(seat: seat)
        // The bot's choice, which must leave the position as it was.
        var choice: LuaValue = .string("roll")
        if case .function = game.hooks.bot {
            do {
                choice = try timed("bot") { try game.withInputBudget { try game.askBot(seat: seat) ?? .nil } }
            } catch { throw OddsError.ruleError("bot(g, \(name)): \(error)") }
            try checkRandom("the bot")
            let (after, _) = try encodeCurrent()
            if after != index {
                throw OddsError.notAnalysable("the bot changed the game when asked what \(name) does (a bot must only choose)")
            }
        }
        let rolls: Bool
        switch choice {
        case .nil, .string("roll"): rolls = true
        default: rolls = false
        }
        if !rolls, let keep = try keptPositions(choice, name: name) {
            // A kept roll is a chance node over the dice not kept, made from the last roll.
            guard keepLastRoll else { throw LastRollObserved() }
            let dice: DiceNotation
            do { dice = try game.dice(forSeat: seat) } catch { throw OddsError.ruleError("\(error)") }
            let rerolled = max(0, dice.count - Set(keep).count)
            let keptText = keep.map(String.init).joined(separator: " ")
            try chance(index, name: name, outcomes: RollOutcomes(sides: dice.sides, count: rerolled, unordered: false),
                       describe: { "\(name) keeping \(keptText.isEmpty ? "none" : keptText) and rolling \($0)" }) { values in
                try game.roll(keeping: keep, rolled: values)
            }
            return
        }
        if !rolls {
            graph.denominator.append(1)
            do { try game.withInputBudget { try game.perform(botChoice: choice) } } catch {
                throw OddsError.ruleError("\(name)'s bot move \(Self.describe(choice)): \(error)")
            }
            try checkRandom("\(name)'s bot move \(Self.describe(choice))")
            stepEffects(weight: 1)
            let (target, _) = try encodeCurrent()
            graph.edgeTarget.append(Int32(target))
            graph.edgeWeight.append(1)
            graph.edgeTurns.append(UInt8(clamping: game.host.turns))
            return
        }
        try chance(index, name: name, outcomes: try rollOutcomes(seat: seat), describe: { "\(name) rolling \($0)" }) { values in
            try game.roll(values: values)
        }
    }

    /// The positions a bot's `{"roll", keep = {...}}` keeps; nil for any other move.
    func keptPositions(_ choice: LuaValue, name: String) throws -> [Int]? {
        guard case .table(let table) = choice, game.lua.array(table).first == .string("roll"),
              case .table(let keep) = game.lua.get(table, "keep") else { return nil }
        do { return try game.botKeep(game.lua.array(keep)) } catch {
            throw OddsError.ruleError("\(name)'s bot move {\"roll\", keep = ...}: \(error)")
        }
    }

    /// A chance node: `play` each outcome (equally likely) from position `index`, an edge
    /// per target and turns begun.
    func chance(_ index: Int, name: String, outcomes: RollOutcomes, describe: (String) -> String, play: ([Int]) throws -> Void) throws {
        graph.denominator.append(outcomes.total)
        // Keyed by target and the turns begun on the way (see `edgeTurns`).
        var weights: [Int64: Int32] = [:]
        var order: [Int64] = []
        var first: Int32 = -1
        let snapshot: [LuaValue]
        do { snapshot = try game.lua.call(game.api.snapshot, [.table(game.g)], budget: .some(nil)) } catch {
            throw OddsError.internal("copying position \(index + 1): \(error)")
        }
        func text(_ values: [Int]) -> String { describe(values.map(String.init).joined(separator: " ")) }
        // With unordered dice, an outcome's values in another order must reach the same
        // position (checked below on a sample); its first such outcome and target.
        var shuffled: (values: [Int], target: Int32)?
        for (i, values) in outcomes.values.enumerated() {
            if i > 0 { try restore(index, from: snapshot) }
            do { try timed("roll") { try play(values) } } catch {
                throw OddsError.ruleError("\(text(values)): \(error)")
            }
            try checkRandom("the roll hook (or a turn hook after it) for \(name)")
            stepEffects(weight: 1)
            let (target, _) = try encodeCurrent()
            let t = Int32(target)
            let key = Int64(t) << 8 | Int64(UInt8(clamping: game.host.turns))
            if weights[key] == nil { order.append(key) }
            weights[key, default: 0] += outcomes.weights[i]
            if i == 0 { first = t }
            if outcomes.unordered, shuffled == nil, Set(values).count > 1 { shuffled = (values, t) }
        }
        if index % Self.repeatEvery == 0, let (values, target) = shuffled {
            try checkOrderDoesNotMatter(values, reached: target, reset: { try restore(index, from: snapshot) }, play: play, describe: describe)
        }
        // Every few positions the first roll is played again, twice, from the same
        // position: a script that keeps something outside g (a global, an upvalue, e.g.
        // the last value rolled) tends to answer differently, where a position could
        // not tell. (A sample, not a proof: see docs/scripting.md.)
        if index % Self.repeatEvery == 0, let values = outcomes.values.first {
            for _ in 0..<2 {
                try restore(index, from: snapshot)
                do { try play(values) } catch {
                    throw OddsError.notAnalysable("\(text(values)) failed when played again "
                        + "from the same position (\(error)): the rules keep state outside g (a script global or upvalue)")
                }
                let (again, _) = try encodeCurrent()
                if Int32(again) != first {
                    throw OddsError.notAnalysable("the roll hook (or a turn hook after it) for \(name) gave a different result when played again "
                        + "from the same position with the same roll: the rules keep state outside g (a script global or upvalue) or read something else outside the game")
                }
            }
        }
        for key in order {
            graph.edgeTarget.append(Int32(truncatingIfNeeded: key >> 8))
            graph.edgeWeight.append(weights[key] ?? 0)
            graph.edgeTurns.append(UInt8(truncatingIfNeeded: key & 0xFF))
        }
    }

    /// Rules that declare `unordered_dice` promise a roll's order never matters: the values
    /// that reached `target`, played again in reverse from the same position (`reset`),
    /// must reach it too (a sample every few positions, in `odds` and `solve`).
    func checkOrderDoesNotMatter(_ values: [Int], reached target: Int32, reset: () throws -> Void,
                                 play: ([Int]) throws -> Void, describe: (String) -> String) throws {
        try reset()
        let reversed = Array(values.reversed())
        func text(_ values: [Int]) -> String { describe(values.map(String.init).joined(separator: " ")) }
        do { try play(reversed) } catch {
            throw OddsError.notAnalysable("the rules declare unordered_dice, but \(text(values)) and \(text(reversed)) do not end alike (\(error))")
        }
        let (other, _) = try encodeCurrent()
        if Int32(other) != target {
            throw OddsError.notAnalysable("the rules declare unordered_dice, but \(text(values)) and \(text(reversed)) reach different positions "
                + "(the script keeps the dice in the order rolled: sort them, or drop unordered_dice)")
        }
    }

    static func describe(_ choice: LuaValue) -> String {
        if case .string(let s) = choice { return "'\(s)'" }
        return choice.typeName
    }
}

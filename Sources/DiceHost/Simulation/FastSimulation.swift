import Lua

/// A simulation worker's fast path: a block of games played by the Lua driver
/// (`FastSimulationDriver`) in one watched call, with no crossing into Swift per move.
/// The driver logs each game it finishes; the log is counted in C (`tally_log`). A game
/// the driver does not finish - it failed, the watchdog stopped it, it may have passed
/// an input's budget, or it needed something only the host does - is played again move
/// by move under the budget (`Simulation.playReference`), and counted into the same
/// tally at its place, so the result equals the move-by-move one exactly.
final class FastSimulation {
    private unowned let game: Game
    private let play: LuaValue
    private let leave: LuaValue
    private let tally: LuaValue
    private let tallyLog: LuaValue
    private let plan: LuaRef
    /// The driver's log of the games it finished (see FastSimulationDriver).
    private let log: LuaRef
    /// True while the driver plays: the host's own game functions then refuse.
    private(set) var isPlaying = false

    private init(game: Game, play: LuaValue, leave: LuaValue, tally: LuaValue, tallyLog: LuaValue, plan: LuaRef, log: LuaRef) {
        self.game = game
        self.play = play
        self.leave = leave
        self.tally = tally
        self.tallyLog = tallyLog
        self.plan = plan
        self.log = log
    }

    /// The driver of `game` for a study, loaded into the game's state.
    static func load(into game: Game, seed: UInt64, moveLimit: Int) throws -> FastSimulation {
        let lua = game.lua
        let native = lua.simulationFunctions()
        let limits = lua.makeTable(fields: [
            ("host_call", .integer(Int64(LuaState.hostCallCost))),
            ("turn_pass", .integer(Int64(Game.turnPassCost))),
            ("turn_pass_limit", .integer(Int64(Game.turnPassLimit))),
            ("timer_delay", .integer(Int64(HostLimits.timerDelay.upperBound))),
            ("pending_timers", .integer(Int64(HostLimits.pendingTimers))),
            ("led_ms", .integer(Int64(HostLimits.ledMilliseconds.upperBound))),
            ("blink_count", .integer(Int64(HostLimits.blinkCount.upperBound))),
            ("led_priority", .integer(Int64(HostLimits.ledPriority.upperBound))),
            ("colours", .table(lua.makeTable(fields: LEDColor.named.keys.sorted().map { ($0, .boolean(true)) }))),
            ("max_dice", .integer(Int64(DiceNotation.counts.upperBound))),
            ("max_die_value", .integer(Int64(Game.maxRevealedValue))),
        ])
        let chunk = try lua.load(FastSimulationDriver.source, chunkName: FastSimulationDriver.chunkName)
        guard let exports = try lua.call(.function(chunk), [game.api.exports, native, game.api.led, .table(limits)]).first?.tableRef,
              let nativeTable = native.tableRef, let log = lua.get(exports, "log").tableRef else {
            throw GameError.refused("the simulation driver returned nothing")
        }
        let template = game.startTemplate ?? game.makeStartTemplate()
        let dice = game.rules.dice
        let plain = !dice.exploding && dice.keep == .all && (1...1000).contains(dice.count) && (1...(1 << 40)).contains(dice.sides)
        let plan = lua.makeTable(fields: [
            ("names", .table(template.names)), ("params", .table(template.params)), ("rules", .table(game.rulesTable)),
            ("setup", game.hooks.setup), ("turn", game.hooks.turn), ("roll", game.hooks.roll), ("bot", game.hooks.bot),
            ("view", game.hooks.view),
            ("count", .integer(Int64(dice.count))), ("sides", .integer(Int64(dice.sides))), ("modifier", .integer(Int64(dice.modifier))),
            ("notation", plain ? .nil : .string(dice.text)), ("dice_text", .string(dice.text)),
            ("seed", .integer(Int64(bitPattern: seed))), ("move_limit", .integer(Int64(moveLimit))),
        ])
        let fast = FastSimulation(game: game, play: lua.get(exports, "play"), leave: lua.get(exports, "leave"),
                                  tally: lua.get(nativeTable, "tally"), tallyLog: lua.get(nativeTable, "tally_log"), plan: plan, log: log)
        game.fastSimulation = fast
        return fast
    }

    /// Plays the games of `block` and counts them into `result` (whose study the plan is).
    func play(_ block: Range<Int>, of study: Simulation.Plan, into result: inout SimulationResult) {
        let lua = game.lua
        let players = game.playerNames.count
        let counts = lua.makeTable(fields: [
            ("wins", .table(lua.makeTable(array: Array(repeating: .integer(0), count: players)))),
            ("draws", .integer(0)), ("unfinished", .integer(0)),
            ("rolls", .table(lua.newTable())), ("turns", .table(lua.newTable())), ("metrics", .table(lua.newTable())),
            ("next", .integer(Int64(block.lowerBound))),
        ])
        var next = block.lowerBound
        while next < block.upperBound {
            isPlaying = true
            var stopped = true
            do {
                _ = try lua.callWatched(play, [.table(plan), .integer(Int64(next)), .integer(Int64(block.upperBound))])
                isPlaying = false
                stopped = lua.get(log, "stopped").boolValue ?? true
            } catch {
                isPlaying = false
                _ = try? lua.call(leave)
            }
            // What the driver finished is counted; the game after it, if the driver stopped
            // there (or its log could not be counted), is the host's, and the driver goes on
            // after it.
            let logged = lua.get(log, "done").intValue ?? 0
            let counted = countLog(from: next, logged: logged, counts: counts)
            next += counted
            if next < block.upperBound && (stopped || counted < logged || counted == 0) {
                countReference(game: next, of: study, counts: counts, into: &result)
                study.playedMoveByMove?(next)
                next += 1
            }
        }
        read(counts, into: &result)
        result.games += block.count
    }

    /// Counts the first `logged` games of the driver's log (game `first` on) into
    /// `counts`; returns how many it counted (all of them, unless the log is unreadable).
    private func countLog(from first: Int, logged: Int, counts: LuaRef) -> Int {
        guard logged > 0 else { return 0 }
        let lua = game.lua
        _ = try? lua.call(tallyLog, [.table(counts), .table(log), .integer(Int64(first))])
        let counted = (lua.get(counts, "next").intValue ?? first) - first
        return max(0, min(counted, logged))
    }

    /// Plays game `index` move by move and counts it at its place in `counts`.
    private func countReference(game index: Int, of study: Simulation.Plan, counts: LuaRef, into result: inout SimulationResult) {
        let lua = game.lua
        var outcome: Int64 = -2, rolls = 0, turns = 0
        var metrics: [(String, Double)] = []
        switch Simulation.playReference(index, of: study, in: game) {
        case .failed(let failure):
            result.errors += 1
            if result.firstError == nil { result.firstError = failure }
        case .unfinished:
            outcome = -1
        case .finished(let seat, let r, let t, let m):
            outcome = Int64(seat ?? 0)
            (rolls, turns, metrics) = (r, t, m)
        }
        let names = lua.makeTable(array: metrics.map { .string($0.0) })
        let values = lua.makeTable(array: metrics.map { .number($0.1) })
        do {
            _ = try lua.call(tally, [.table(counts), .integer(outcome), .integer(Int64(rolls)), .integer(Int64(turns)),
                                     .table(names), .table(values), .integer(Int64(metrics.count)), .integer(Int64(index))])
        } catch {
            result.errors += 1
            if result.firstError == nil {
                result.firstError = .init(index: index, seed: Simulation.gameSeed(study.seed, index: index), message: "\(error)")
            }
        }
    }

    /// What the driver counted, into `result`.
    private func read(_ counts: LuaRef, into result: inout SimulationResult) {
        let lua = game.lua
        if let wins = lua.get(counts, "wins").tableRef {
            for seat in result.wins.indices { result.wins[seat] += lua.get(wins, .integer(Int64(seat + 1))).intValue ?? 0 }
        }
        result.draws += lua.get(counts, "draws").intValue ?? 0
        result.unfinished += lua.get(counts, "unfinished").intValue ?? 0
        for (key, tally) in [("rolls", \SimulationResult.rolls), ("turns", \SimulationResult.turns)] {
            guard let histogram = lua.get(counts, .string(key)).tableRef else { continue }
            for (value, count) in lua.entries(histogram) {
                guard let value = value.intValue, let count = count.intValue else { continue }
                for _ in 0..<count { result[keyPath: tally].add(value) }
            }
        }
        guard let metrics = lua.get(counts, "metrics").tableRef else { return }
        for (name, fields) in lua.entries(metrics) {
            guard case .string(let name) = name, let fields = fields.tableRef else { continue }
            func field(_ i: Int64) -> LuaValue { lua.get(fields, .integer(i)) }
            var tally = MetricTally()
            tally.count = field(1).intValue ?? 0
            tally.games = field(2).intValue ?? 0
            tally.sum = field(3).doubleValue ?? 0
            tally.sumOfSquares = field(4).doubleValue ?? 0
            guard tally.count > 0 else { continue }
            tally.minimum = field(5).doubleValue
            tally.maximum = field(6).doubleValue
            result.metrics[name, default: MetricTally()].add(tally)
        }
    }
}

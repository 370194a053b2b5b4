import Foundation
import Lua

/// The inputs a game takes: a roll, a named action, the clock moving on. Each is one
/// transaction (Game+Transactions).
extension Game {
    /// A roll for `player` (default: the current player): given values, or the
    /// declared dice from the game's generator; a flagged roll carries no values.
    public func roll(values: [Int]? = nil, flag: Roll.Flag = .ok, by player: String? = nil) throws {
        var checked: CheckedRoll?
        try roll(values: values, flag: flag, by: player, checked: &checked)
    }

    /// What a roll by the current player checked (its seat and dice) in one position:
    /// the analyses play every outcome of a roll from the same position, so the second
    /// and later outcomes need not look them up again (their values are outcomes of
    /// those dice by construction).
    struct CheckedRoll {
        var seat: Int
        var dice: DiceNotation
    }

    /// `roll(values:)`, given what an earlier roll from this same position checked
    /// (nil: checked here, and handed back for the next outcome).
    func roll(values: [Int]?, flag: Roll.Flag = .ok, by player: String? = nil, checked: inout CheckedRoll?) throws {
        if let known = checked, let values, flag == .ok, player == nil {
            try transaction { try deliver(Roll(values: values, total: known.dice.total(of: values)), seat: known.seat) }
            return
        }
        var seat = 0
        var dice = rules.dice
        // Whose turn, which dice, which values: read only, so a roll refused here needs
        // no rollback.
        try transaction(check: {
            seat = try self.seat(of: player)
            try checkStillIn(seat: seat, input: "roll")
            if player != nil { try checkTurn(seat: seat, input: "roll") }
            dice = try self.dice(forSeat: seat)
            if flag == .ok, let values {
                guard values.count == dice.count else {
                    throw GameError.refused("roll needs \(dice.count) value\(dice.count == 1 ? "" : "s") for \(dice), got \(values.count)")
                }
                if let bad = values.first(where: { !dice.dieValues.contains($0) }) {
                    throw GameError.refused("a \(dice.sides)-sided die cannot show \(bad)")
                }
            }
        }) {
            var roll: Roll
            if flag != .ok {
                roll = Roll(values: [], total: 0, flag: flag)
            } else if let values {
                roll = Roll(values: values, total: dice.total(of: values))
                if player == nil { checked = CheckedRoll(seat: seat, dice: dice) }
            } else {
                let values = dice.roll { lua.random.integer(in: $0) }
                roll = Roll(values: values, total: dice.total(of: values))
            }
            try deliver(roll, seat: seat)
        }
    }

    /// A checked roll is counted, reaches the log and the rules' roll hook.
    private func deliver(_ roll: Roll, seat: Int) throws {
        host.device.awaitingRoll = !roll.ok // the die rolls again after a flagged roll (see Game+Device)
        countAndLog(roll, seat: seat)
        var arguments: [LuaValue] = [hooks.roll, .table(g), try playerValue(seat), .integer(Int64(roll.total)), .string(roll.flag.rawValue)]
        arguments.reserveCapacity(5 + roll.values.count)
        for value in roll.values { arguments.append(.integer(Int64(value))) }
        try call(api.rollInput, arguments)
    }

    /// One more roll in the host's count, and its event (to its roller only when rolls are secret).
    func countAndLog(_ roll: Roll, seat: Int) {
        host.rolls += 1
        log(.roll(player: playerNames[seat - 1], roll: roll), to: rules.secretRolls ? [playerNames[seat - 1]] : nil)
    }

    /// A named action from the rules' `actions` table, by `player` (default: current).
    public func act(_ name: String, by player: String? = nil, arguments: [LuaValue] = []) throws {
        var function: LuaRef?
        var seat = 0
        // Which action, whose turn: read only, so an action refused here needs no rollback.
        try transaction(check: {
            guard case .table(let actions) = lua.get(rulesTable, "actions"), case .function(let f) = lua.get(actions, .string(name)) else {
                let known = rules.actions.isEmpty ? "this game has none" : "this game has: " + rules.actions.joined(separator: ", ")
                throw GameError.refused("unknown action '\(name)' (\(known))")
            }
            function = f
            seat = try self.seat(of: player)
            try checkStillIn(seat: seat, input: name)
            if player != nil { try checkTurn(seat: seat, input: name) }
        }) {
            guard let function else { return }
            try call(.function(function), [.table(g), try playerValue(seat)] + arguments)
        }
    }

    /// Moves the game clock forward, firing due timers in order (equal deadlines in
    /// the order they were set).
    public func advance(by milliseconds: Int) throws {
        guard milliseconds >= 0 else { throw GameError.refused("time cannot go backwards (\(milliseconds) ms)") }
        // No timer due, no undo kept (a served game): only the host's clock moves, no rule
        // code runs, so there is nothing to roll back and no copy of `g` to take (a server
        // catches the clock up before every input). `g.now` follows at the next
        // hook (`syncClock`).
        if !keepsUndoHistory, transactional, !inTransaction, host.pendingTurn == nil {
            let target = try clockTarget(after: milliseconds)
            if isOver || host.timers.first.map({ $0.due > target }) ?? true {
                host.now = target
                recordClockMove()
                return
            }
        }
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
}

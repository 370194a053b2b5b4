import Lua

/// Rolling some of the dice again (Yahtzee, Farkle): the player keeps the dice at some
/// positions of their last good roll and the others are rolled. The roll hook sees the
/// whole new roll with `r.kept`, the positions kept (`{1, 3}`), and `r.previous`, the
/// roll they came from.
///
///     try game.roll(keeping: [1, 3])   // at the prompt: roll keep 1 3; a bot: {"roll", keep = {1, 3}}
extension Game {
    /// A roll for `player` (default: the current one) that keeps the dice at `positions`
    /// (1-based, into their last good roll) and rolls the others from the game's
    /// generator, in position order - or gives them `rolled` (one value per die not
    /// kept, in position order: `roll keep 1 3 = 4 5`, so a test need not depend on the
    /// seed). No positions keeps none and rolls every die; every position rolls none.
    public func roll(keeping positions: [Int], rolled given: [Int]? = nil, by player: String? = nil) throws {
        var checked: CheckedKeep?
        try roll(keeping: positions, rolled: given, by: player, checked: &checked)
    }

    /// What a keep checked in one position (see `CheckedRoll`): the seat, the dice, the
    /// last roll's values and which of them are rolled again.
    struct CheckedKeep {
        var seat: Int
        var dice: DiceNotation
        var values: [Int]
        var rerolled: [Int]
        var positions: [Int]
    }

    /// `roll(keeping:rolled:)`, given what the same keep from this same position checked
    /// before (nil: checked here, and handed back for the next outcome).
    func roll(keeping positions: [Int], rolled given: [Int]?, by player: String? = nil, checked: inout CheckedKeep?) throws {
        try transaction {
            if let known = checked, let given, player == nil, known.positions == positions, given.count == known.rerolled.count {
                var values = known.values
                for (index, value) in zip(known.rerolled, given) { values[index] = value }
                try deliverKept(Roll(values: values, total: known.dice.total(of: values)), positions: positions, seat: known.seat)
                return
            }
            let seat = try self.seat(of: player)
            try checkStillIn(seat: seat, input: "roll")
            if player != nil { try checkTurn(seat: seat, input: "roll") }
            let dice = try self.dice(forSeat: seat)
            var values = try lastRollValues(seat: seat, dice: dice)
            let kept = Set(positions)
            guard kept.count == positions.count else { throw GameError.refused("roll keep: each die may be kept once, got \(positions.map(String.init).joined(separator: " "))") }
            if let bad = positions.first(where: { !(1...dice.count).contains($0) }) {
                throw GameError.refused("roll keep: positions are 1 to \(dice.count) for \(dice), got \(bad)")
            }
            let rerolled = values.indices.filter { !kept.contains($0 + 1) }
            if let given {
                guard given.count == rerolled.count else {
                    throw GameError.refused("roll keep: \(rerolled.count) dice are rolled again, so give \(rerolled.count) value\(rerolled.count == 1 ? "" : "s") after '=', got \(given.count)")
                }
                if let bad = given.first(where: { !dice.dieValues.contains($0) }) {
                    throw GameError.refused("a \(dice.sides)-sided die cannot show \(bad)")
                }
                if player == nil {
                    checked = CheckedKeep(seat: seat, dice: dice, values: values, rerolled: rerolled, positions: positions)
                }
                for (index, value) in zip(rerolled, given) { values[index] = value }
            } else {
                var one = dice
                one.count = 1
                for index in rerolled { values[index] = one.roll { lua.random.integer(in: $0) }.first ?? 1 }
            }
            try deliverKept(Roll(values: values, total: dice.total(of: values)), positions: positions, seat: seat)
        }
    }

    /// A checked keep reaches the log and the rules' roll hook, with `r.kept`.
    private func deliverKept(_ roll: Roll, positions: [Int], seat: Int) throws {
        countAndLog(roll, seat: seat)
        let keptTable = lua.makeTable(array: positions.sorted().map { .integer(Int64($0)) })
        var arguments: [LuaValue] = [hooks.roll, .table(g), try playerValue(seat), .integer(Int64(roll.total)), .string("ok"), .table(keptTable)]
        for value in roll.values { arguments.append(.integer(Int64(value))) }
        try call(api.rollInputKept, arguments)
    }

    /// The values of the player's last good roll (`p.last_roll`), checked against the dice.
    func lastRollValues(seat: Int, dice: DiceNotation) throws -> [Int] {
        guard let p = try playerValue(seat).tableRef, case .table(let last) = lua.get(p, "last_roll"),
              case .table(let valuesTable) = lua.get(last, "values") else {
            throw GameError.refused("roll keep: \(playerNames[seat - 1]) has no roll to keep dice from yet")
        }
        let values = lua.array(valuesTable).compactMap(\.intValue)
        guard values.count == dice.count, values.allSatisfy(dice.dieValues.contains) else {
            throw GameError.refused("roll keep: the last roll does not fit \(dice) (the dice changed?); roll them all")
        }
        return values
    }
}

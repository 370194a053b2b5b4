import Lua

/// Turn order: a roll or an action comes from the player whose turn it is, unless the
/// rules let that input come at any time (`rules.anytime = {"snap"}`): Snap's `snap`,
/// a bid anyone may raise. An input by another player is refused before any hook runs:
/// "it is Ann's turn, not Bob's".
extension Game {
    /// Refuses `input` ("roll" or an action name) by the player in `seat` when it is
    /// another player's turn and the rules do not list `input` in `anytime`. A game with
    /// no current player (`g.current` nil) takes inputs from anyone.
    func checkTurn(seat: Int, input: String) throws {
        guard !rules.anytime.contains(input), case .table(let current) = lua.get(g, "current"),
              let currentSeat = lua.get(current, "seat").intValue, currentSeat != seat, isSeat(currentSeat) else { return }
        throw GameError.refused("it is \(playerNames[currentSeat - 1])'s turn, not \(playerNames[seat - 1])'s")
    }

    /// Turns one input may pass on before the game calls it a loop (here and in the
    /// prelude's simulation loop).
    static let turnPassLimit = 1000

    /// Refuses `input` by the player in `seat` when they are out (`g:eliminate`, `g:lose`)
    /// and the rules do not list `input` in `while_out`: a player out of Liar's Dice calls
    /// no more bids.
    func checkStillIn(seat: Int, input: String) throws {
        guard !rules.whileOut.contains(input), isOut(seat: seat) else { return }
        throw GameError.refused("\(playerNames[seat - 1]) is out of the game: a player who is out makes no more inputs"
            + (rules.whileOut.isEmpty ? "" : " but \(rules.whileOut.sorted().joined(separator: ", "))"))
    }

    /// Whether the player is out of the game (eliminated, or lost in a game that goes on).
    public func isOut(_ player: String) -> Bool {
        guard let index = playerNames.firstIndex(of: player) else { return false }
        return isOut(seat: index + 1)
    }

    func isOut(seat: Int) -> Bool {
        guard isSeat(seat), let p = playerTables[seat - 1].tableRef else { return false }
        return lua.get(p, "eliminated").isTruthy
    }

    /// The seat whose turn begins now, if any: the one a hook passed the turn to. The turn
    /// never rests with a player who is out: when it was passed to one, or stays with the
    /// current player after they went out, it goes on to the next player still in,
    /// clockwise, as `g:next_turn()` would pass it (and `g.current` is that player).
    func takePendingTurn() throws -> Int? {
        guard !isOver else { return nil }
        var seat = host.pendingTurn
        host.pendingTurn = nil
        if seat == nil, let current = lua.get(g, path: "current", "seat").intValue, isOut(seat: current) { seat = current }
        guard let wanted = seat else { return nil }
        guard isOut(seat: wanted) else { return wanted }
        let stillIn = try activeSeats()
        guard let next = stillIn.first(where: { $0 > wanted }) ?? stillIn.first else { return nil }
        lua.set(g, "current", try playerValue(next))
        return next
    }

    /// Runs the turn hook for each `g:next_turn` a hook asked for (see `takePendingTurn`).
    func drainPendingTurns() throws {
        var guardCount = 0
        while let seat = try takePendingTurn() {
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

    /// Passes the current player's turn on without a move, as `g:next_turn()` would pass
    /// it (to the next player still in, clockwise), and says so in the log. Only for rules
    /// that declare `skip_absent = true`: a served room skips an absent or idle seat this
    /// way when the rules have no bot. One input (the REPL's `skip`), so a replay repeats it.
    public func passTurn() throws {
        guard rules.skipsAbsent else {
            throw GameError.refused("\(rules.name) does not let a turn be skipped (the rules declare no skip_absent = true)")
        }
        try transaction {
            let seat = try self.seat(of: nil)
            let next = try nextSeat()
            log(.say("\(playerNames[seat - 1])'s turn is skipped"))
            lua.set(g, "current", try playerValue(next))
            host.pendingTurn = next
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
}

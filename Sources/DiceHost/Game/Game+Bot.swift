import Lua

extension Game {
    /// Asks the rules' `bot(g, p)` what the current player does and does it: "roll"
    /// rolls the declared dice; any other string is an action; a table
    /// `{"ante", 25}` is an action with arguments. Without a bot, the player rolls.
    /// The bot's choice and the move it makes are one input, under one budget: what the
    /// bot writes while it chooses is rolled back with a move that fails.
    ///
    /// In a game with a `view` hook the bot is fair: it is called as `bot(v, p)` with
    /// `v = view(g, p)`, what its player may see, never `g` (p is its own player table).
    public func playBotMove() throws {
        let bot = hooks.bot
        guard case .function = bot else { return try roll() }
        try transaction {
            let seat = try self.seat(of: nil)
            let choice = try lua.call(bot, [try botSubject(seat: seat), try playerValue(seat)])
            try perform(botChoice: choice.first ?? .nil)
        }
    }

    /// What a bot of `seat` decides from: its player's view in a game with one, else `g`.
    /// Every caller of a bot (play --auto, sim, odds) goes through here.
    func botSubject(seat: Int) throws -> LuaValue {
        guard hasView else { return .table(g) }
        return try viewValue(for: playerName(seat: seat))
    }

    /// What seat's bot chooses now, without making the move (exact odds and best play ask
    /// it in every position); nil when the rules have no bot. Called as `playBotMove` calls
    /// the bot: a change to how a bot is asked belongs in both.
    func askBot(seat: Int) throws -> LuaValue? {
        guard case .function = hooks.bot else { return nil }
        return try lua.call(hooks.bot, [try botSubject(seat: seat), try playerValue(seat)]).first ?? .nil
    }

    /// Does what a bot chose (see `playBotMove`).
    func perform(botChoice: LuaValue) throws {
        switch botChoice {
        case .nil, .string("roll"): try roll()
        case .string(let action): try act(action)
        case .table(let t):
            let parts = lua.array(t)
            guard case .string(let action)? = parts.first else { throw GameError.refused("bot returned a table without an action name") }
            if action == "roll", case .table(let keep) = lua.get(t, "keep") {
                try roll(keeping: try botKeep(lua.array(keep)))
            } else if action == "roll" {
                let values = parts.dropFirst().compactMap(\.intValue); try roll(values: values.isEmpty ? nil : values)
            } else if action == "wait", !rules.actions.contains("wait") {
                try advance(by: try botWait(parts.dropFirst().first))
            } else { try act(action, arguments: Array(parts.dropFirst())) }
        case let other:
            throw GameError.refused("bot must return \"roll\", an action name or {action, args...}, got \(other.typeName)")
        }
    }

    /// `{"roll", keep = {1, 3}}`: die positions, whole numbers from 1 to the number of dice
    /// the current player rolls (their own `p.dice`, else the declared dice).
    func botKeep(_ values: [LuaValue]) throws -> [Int] {
        let count = max(1, (try? dice(forSeat: seat(of: nil)).count) ?? rules.dice.count)
        return try values.map { value in
            guard let position = value.intValue, (1...count).contains(position) else {
                throw GameError.refused("bot's keep must list die positions 1 to \(count), got \(value.description.prefix(40))")
            }
            return position
        }
    }

    /// `{"wait", ms}`: the bot lets game time pass (timers fire), 0 to a day.
    func botWait(_ value: LuaValue?) throws -> Int {
        guard let ms = value?.intValue, (0...HostLimits.timerDelay.upperBound).contains(ms) else {
            throw GameError.refused("bot's wait takes milliseconds from 0 to \(HostLimits.timerDelay.upperBound), e.g. {\"wait\", 500}, got \(value.map { String($0.description.prefix(40)) } ?? "nothing")")
        }
        return ms
    }

    /// Plays bot moves until the game ends or `limit` moves are made; returns the moves
    /// made. The same game as `playBotMove` in a loop, but when there are neither events
    /// nor undo points to keep (`recordsEvents` and `transactional` off, as in a
    /// simulation) plain rolls are played inside one Lua call, and with no instruction
    /// budget when a `LuaWatchdog` watches the state (see `LuaState.callWatched`). A failing
    /// move leaves the game as it failed (there is no rollback without transactions).
    public func playBotMoves(limit: Int) throws -> Int {
        var moves = 0
        while moves < limit && !isOver {
            // A fair bot decides from a view the host makes, so a game with a view plays
            // move by move (one view per bot move); so does a player whose dice changed.
            guard playsLoopsInLua, !hasView else {
                try playBotMove()
                moves += 1
                continue
            }
            let dice = rules.dice
            let simple = !dice.exploding && dice.keep == .all
            syncClock()
            let results: [LuaValue]
            do {
                results = try lua.callWatched(api.botMoves, [.table(g), hooks.bot, hooks.roll, hooks.turn, .integer(Int64(limit - moves)),
                                                             .integer(Int64(dice.count)), .integer(Int64(dice.sides)),
                                                             .integer(Int64(dice.modifier)), simple ? .nil : .string(dice.text),
                                                             .string(dice.text)])
            } catch let error as LuaError {
                throw GameError.script(error)
            }
            moves += results.first?.intValue ?? 0
            host.rolls += results.count > 1 ? results[1].intValue ?? 0 : 0
            switch results.count > 2 ? results[2] : .nil {
            case .string("move"):
                // The bot chose inside the watched call; the move it chose finishes that
                // step, with what is left of the step's budget.
                let allowance = lua.watchedStepAllowance
                guard allowance > 0 else {
                    throw GameError.script(LuaError(kind: .stalled, message: "a bot's choice took too long to finish its move within the budget"))
                }
                try lua.withBudget(.some(allowance)) { try perform(botChoice: results.count > 3 ? results[3] : .nil) }
                moves += 1
            case .string("host"):
                try playBotMove()
                moves += 1
            default:
                break
            }
        }
        return moves
    }
}

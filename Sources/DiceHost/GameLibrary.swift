import Lua

/// The host functions behind `g`'s methods and `rules{...}` (wrapped by the prelude).
extension Game {
    func gameFunctions() -> [(String, LuaFunctionBody)] {
        [
            ("declare", { [unowned self] call in
                let table = try call.table(1)
                let location = call.location().map { "\($0.file):\($0.line)" } ?? sourcePath
                do {
                    let rules = try RuleSet.declaration(from: table, in: lua, location: location)
                    declared.append((table, rules))
                } catch LuaCall.Failure.argument(_, let message) {
                    throw LuaCall.Failure.value(.string("\(location): bad rules declaration: \(message)"))
                }
                return call.push(.table(table))
            }),
            ("say", { [unowned self] call in
                let text = try call.string(1)
                log(.say(text))
                return 0
            }),
            ("emit", { [unowned self] call in
                let name = try call.string(1), data = try call.optionalString(2) ?? ""
                log(.custom(name: name, data: data))
                return 0
            }),
            ("next_turn", { [unowned self] call in
                let seat = call.isNil(1) ? try nextSeat() : try seatArgument(call, 1)
                lua.set(g, "current", try playerValue(seat))
                host.pendingTurn = seat
                return 0
            }),
            ("finish", { [unowned self] call in
                let kind = try call.string(1)
                if kind == "draw" {
                    host.outcome = .draw
                    log(.draw)
                    return 0
                }
                let seat = try seatArgument(call, 2)
                let name = playerNames[seat - 1]
                switch kind {
                case "win":
                    host.outcome = .win(name)
                    log(.win(player: name))
                default:
                    if let p = try playerValue(seat).tableRef { lua.set(p, "eliminated", .boolean(true)) }
                    log(kind == "lose" ? .lose(player: name) : .eliminate(player: name))
                    let remaining = try activeSeats()
                    if remaining.count == 1 {
                        host.outcome = .win(playerNames[remaining[0] - 1])
                        log(.win(player: playerNames[remaining[0] - 1]))
                    } else if remaining.isEmpty {
                        host.outcome = .draw
                        log(.draw)
                    }
                }
                return 0
            }),
            ("record", { [unowned self] call in
                recordedMetrics.append((try call.string(1), try call.number(2)))
                return 0
            }),
            ("is_over", { [unowned self] call in call.push(.boolean(isOver)) }),
            // The simulation loop's half of drainPendingTurns: the player whose turn a
            // hook passed to (counted and logged), or nil and whether the game is over.
            ("take_turn", { [unowned self] call in
                guard let seat = host.pendingTurn, !isOver else { return call.push(.nil) + call.push(.boolean(isOver)) }
                host.pendingTurn = nil
                host.turns += 1
                log(.turn(player: playerNames[seat - 1]))
                return call.push(try playerValue(seat))
            }),
            // start_game's: the new g and its players, made in Lua.
            ("adopt", { [unowned self] call in
                adopt(g: try call.table(1), players: try call.table(2))
                return 0
            }),
            // start_game's half of `start`: without a turn pending, the current player's
            // (the seat of g.current, passed in).
            ("first_turn", { [unowned self] call in
                beginFirstTurn(seat: call.value(1).intValue)
                return 0
            }),
            ("begin_step", { [unowned self] _ in
                lua.beginStep()
                return 0
            }),
            ("after", { [unowned self] call in
                let ms = try call.integer(1)
                guard ms >= 0 else { throw LuaCall.Failure.argument(1, "delay must be >= 0 ms, got \(ms)") }
                let callback = try call.function(2)
                let repeating = call.boolean(3)
                if repeating && ms == 0 { throw LuaCall.Failure.argument(1, "a repeating timer needs a period > 0 ms") }
                let id = host.nextTimerID
                host.nextTimerID += 1
                host.timers.append(ScheduledTimer(id: id, due: host.now + Int(ms), interval: repeating ? Int(ms) : nil, callback: callback))
                return call.push(Int64(id))
            }),
            ("cancel", { [unowned self] call in
                let id = Int(try call.integer(1))
                host.timers.removeAll { $0.id == id }
                return 0
            }),
        ]
    }

    /// A player table argument → its seat; errors read "player expected, got nil".
    func seatArgument(_ call: LuaCall, _ index: Int) throws -> Int {
        guard case .table(let p) = call.value(index), let seat = lua.get(p, "seat").intValue,
              (1...playerNames.count).contains(seat), (try? playerValue(seat)) == .table(p) else {
            throw LuaCall.Failure.argument(index, "player expected, got \(call.typeName(index))")
        }
        return seat
    }

    func activeSeats() throws -> [Int] {
        try (1...playerNames.count).filter { seat in
            guard let p = try playerValue(seat).tableRef else { return false }
            return !lua.get(p, "eliminated").isTruthy
        }
    }

    /// The next seat clockwise from the current one that is not eliminated.
    func nextSeat() throws -> Int {
        let current = (try? seat(of: nil)) ?? 0
        let active = try activeSeats()
        guard !active.isEmpty else { throw LuaCall.Failure.message("next_turn: every player is eliminated") }
        return active.first(where: { $0 > current }) ?? active[0]
    }
}

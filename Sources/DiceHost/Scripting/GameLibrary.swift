import Lua

/// The host functions behind `g`'s methods and `rules{...}` (wrapped by the prelude).
extension Game {
    func gameFunctions() -> [(String, LuaFunctionBody)] {
        [
            ("declare", { [unowned self] call in
                let table = try call.table(1)
                let location = call.location().map { "\($0.file):\($0.line)" } ?? displayPath
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
                let audience = try audienceArgument(call, 2, function: "tell")
                try reserveEvent(.say(text), for: audience == nil ? "g:say" : "g:tell")
                log(.say(text), to: audience)
                return 0
            }),
            ("emit", { [unowned self] call in
                let name = try call.string(1), data = try call.optionalString(2) ?? ""
                let audience = try audienceArgument(call, 3, function: "emit")
                try reserveEvent(.custom(name: name, data: data), for: "g:emit")
                log(.custom(name: name, data: data), to: audience)
                return 0
            }),
            ("reveal", { [unowned self] call in
                let seat = try seatArgument(call, 1)
                let roll = try revealedRoll(call, 2)
                try reserveEvent(.reveal(player: playerName(seat: seat), roll: roll), for: "g:reveal")
                log(.reveal(player: playerName(seat: seat), roll: roll))
                return 0
            }),
            ("next_turn", { [unowned self] call in
                try refuseInLook("g:next_turn()", Self.passTurnElsewhere)
                let seat = call.isNil(1) ? try nextSeat() : try seatArgument(call, 1)
                lua.set(g, "current", try playerValue(seat))
                host.pendingTurn = seat
                return 0
            }),
            ("finish", { [unowned self] call in
                let kind = try call.string(1)
                try refuseInLook("g:\(kind)()", Self.endGameElsewhere)
                // A game ends once: an outcome after the first (in the same hook or a later
                // one, a timer's included) is an error, so the input is rolled back whole.
                if isOver {
                    throw LuaCall.Failure.message("g:\(kind)() after the game ended (\(outcomeText)): a game ends once; check g:is_over() first")
                }
                if kind == "draw" {
                    host.outcome = .draw
                    log(.draw)
                    return 0
                }
                let seat: Int
                do { seat = try seatArgument(call, 2) } catch LuaCall.Failure.argument(_, let message) {
                    // Named as the script calls it (g:win(p)), not as the prelude does (host.finish(kind, p)).
                    throw LuaCall.Failure.message("bad argument #1 to '\(kind)' (\(message))")
                }
                let name = playerName(seat: seat)
                switch kind {
                case "win":
                    host.outcome = .win(name)
                    log(.win(player: name))
                default:
                    if let p = try playerValue(seat).tableRef { lua.set(p, "eliminated", .boolean(true)) }
                    log(kind == "lose" ? .lose(player: name) : .eliminate(player: name))
                    let remaining = try activeSeats()
                    if remaining.count == 1 {
                        host.outcome = .win(playerName(seat: remaining[0]))
                        log(.win(player: playerName(seat: remaining[0])))
                    } else if remaining.isEmpty && kind == "lose" && playerNames.count == 1 {
                        host.outcome = .loss(name)  // a solo game is lost, not drawn
                    } else if remaining.isEmpty {
                        host.outcome = .draw
                        log(.draw)
                    }
                }
                return 0
            }),
            ("record", { [unowned self] call in
                let metric = try call.string(1), value = try call.number(2)
                // A NaN or an infinity would poison every mean and histogram of a simulation.
                guard value.isFinite else { throw LuaCall.Failure.argument(2, "value must be a finite number, got \(LuaValue.format(value))") }
                try reserveHostMemory(MemoryLayout<(String, Double)>.stride + metric.utf8.count + MemoryLayout<Int>.stride, for: "g:record")
                recordedMetrics.append((metric, value))
                return 0
            }),
            ("is_over", { [unowned self] call in call.push(.boolean(isOver)) }),
            // The simulation loop's half of drainPendingTurns: the player whose turn a
            // hook passed to (counted and logged), or nil and whether the game is over.
            ("take_turn", { [unowned self] call in
                guard let seat = try takePendingTurn() else { return call.push(.nil) + call.push(.boolean(isOver)) }
                try lua.charge(Self.turnPassCost) // as drainPendingTurns charges a pass
                let player = try playerValue(seat)
                host.turns += 1
                log(.turn(player: playerName(seat: seat)))
                return call.push(player)
            }),
            // start_game's: the new g and its players, made in Lua.
            ("adopt", { [unowned self] call in
                adopt(g: try call.table(1), players: try call.table(2))
                return 0
            }),
            // start_game's half of `start`: without a turn pending, the current player's
            // (the seat of g.current, passed in).
            ("first_turn", { [unowned self] call in
                try beginFirstTurn(seat: call.value(1).intValue)
                return 0
            }),
            ("begin_step", { [unowned self] _ in
                lua.beginStep()
                return 0
            }),
            ("after", { [unowned self] call in
                let repeating = call.boolean(3)
                try refuseInLook(repeating ? "timer.every" : "timer.after", Self.setTimersElsewhere)
                let raw = try call.integer(1)
                guard raw >= 0 else { throw LuaCall.Failure.argument(1, "delay must be >= 0 ms, got \(raw)") }
                if repeating && raw == 0 { throw LuaCall.Failure.argument(1, "a repeating timer needs a period > 0 ms") }
                let ms = try HostLimits.check(raw, in: HostLimits.timerDelay, argument: 1, name: repeating ? "period" : "delay", unit: " ms")
                let callback = try call.function(2)
                guard host.timers.count < HostLimits.pendingTimers else {
                    throw LuaCall.Failure.message("\(repeating ? "timer.every" : "timer.after"): a game may have at most \(HostLimits.pendingTimers) timers pending")
                }
                // The clock stays <= HostLimits.maximumTime, so the sum is far from overflow;
                // a deadline past that bound could never fire anyway.
                guard host.now <= HostLimits.maximumTime - ms else {
                    throw LuaCall.Failure.message("\(repeating ? "timer.every" : "timer.after"): the deadline would pass the game clock's end (\(HostLimits.maximumTime) ms)")
                }
                let id = host.nextTimerID
                host.nextTimerID += 1
                host.timers.append(ScheduledTimer(id: id, due: host.now + ms, interval: repeating ? ms : nil, callback: callback))
                return call.push(Int64(id))
            }),
            ("cancel", { [unowned self] call in
                try refuseInLook("handle:cancel()", Self.setTimersElsewhere)
                // Any integer is a fine id: one that names no pending timer cancels nothing.
                let id = try call.integer(1)
                host.timers.removeAll { Int64($0.id) == id }
                return 0
            }),
            ("left", { [unowned self] call in
                // handle:left() for a table's countdown: nil once the timer fired or was cancelled.
                let id = try call.integer(1)
                try lua.charge(host.timers.count)
                guard let due = host.timers.pending.first(where: { Int64($0.id) == id })?.due else { return 0 }
                return call.push(Int64(max(0, due - host.now)))
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

import Lua

/// The one entry point for typed inputs: every input a REPL line, a log, a die, a
/// fuzzer or a served room brings goes through `apply`, which says what became of it.
extension Game {
    /// Applies `input` as one transaction: `.applied(events)`, or `.refused(code,
    /// message)` / `.ruleFailure(error)` with the game left exactly as it was.
    @discardableResult
    public func apply(_ input: GameInput) -> GameOutcome {
        if let problem = input.problem { return .refused(.badArgument, problem) }
        let before = events.count, wasOver = isOver
        do {
            try perform(input)
        } catch {
            return outcome(of: error, for: input, wasOver: wasOver)
        }
        return .applied(Array(events.dropFirst(before)))
    }

    /// Runs `input` through the throwing entry points.
    public func perform(_ input: GameInput) throws {
        // Kept by the transaction it begins, to be replayed if a later input fails.
        let outermost = !inTransaction
        if outermost { recordingInput = input }
        defer { if outermost { recordingInput = nil } }
        let seat = input.seat
        switch input.kind {
        case .roll(.random): try roll(by: seat)
        case .roll(.values(let values)): try roll(values: values, by: seat)
        case .roll(.flagged(let flag)): try roll(flag: flag, by: seat)
        case .roll(.keep(let positions, let rolled)): try roll(keeping: positions, rolled: rolled, by: seat)
        case .action(let name, let arguments): try act(name, by: seat, arguments: arguments.map(\.luaValue))
        case .tick(let ms): try advance(by: ms)
        case .device(.roll(let roll)): try dieRoll(roll)
        case .device(.status(let status, let value)): try deviceStatus(status, value: value)
        case .tilt(let x, let y): try sensorSamples([.tilt(x: x, y: y, at: now)])
        case .sensor(let samples, let fromNow):
            let start = fromNow ? now : 0
            guard samples.allSatisfy({ $0.time <= HostLimits.maximumTime - start }) else {
                throw GameError.refused("the recording would run past the game clock's end")
            }
            try sensorSamples(fromNow ? samples.map { SensorSample(sensor: $0.sensor, time: start + $0.time, values: $0.values) } : samples)
        case .restart: try restart()
        case .reload: try reload()
        case .bot:
            guard seat == nil || seat == currentPlayer else { throw GameError.refused("usage: bot (the current player's bot makes their move)") }
            guard !isOver else { throw GameError.refused("the game is over") }
            try playBotMove()
        case .skip:
            guard seat == nil || seat == currentPlayer else { throw GameError.refused("usage: skip (the current player's turn passes on)") }
            try passTurn()
        }
    }

    /// The outcome of an input that threw: a refusal with its code, or a rule failure.
    func outcome(of error: Error, for input: GameInput, wasOver: Bool) -> GameOutcome {
        switch error {
        case GameError.script(let failure) where failure.isRefusal: return .refused(.rulesRefused, GameError.script(failure).description)
        case GameError.script(let failure): return .ruleFailure(failure)
        case GameError.invalidRules: return .refused(.invalidRules, "\(error)")
        case GameError.refused(let message): return .refused(refusalCode(of: input, wasOver: wasOver), GameEvent.oneLine(message))
        default: return .refused(.badArgument, GameEvent.oneLine("\(error)"))
        }
    }

    /// Why the host refused `input`, from the checks it goes through in order (the game
    /// is as it was before the input: a refused input changes nothing).
    func refusalCode(of input: GameInput, wasOver: Bool) -> RefusalCode {
        let name: String
        switch input.kind {
        case .roll: name = "roll"
        case .action(let action, _):
            if wasOver { return .gameOver }
            guard rules.actions.contains(action) else { return .unknownAction }
            name = action
        case .bot, .skip: return wasOver ? .gameOver : .refused
        case .tick, .device, .tilt, .sensor, .restart, .reload: return .refused
        }
        if wasOver { return .gameOver }
        guard let seat = try? self.seat(of: input.seat) else { return .unknownPlayer }
        if (try? checkStillIn(seat: seat, input: name)) == nil { return .out }
        if input.seat != nil, (try? checkTurn(seat: seat, input: name)) == nil { return .notYourTurn }
        return .badArgument
    }
}

import Lua

/// Makes the next input of a fuzz case from the position the game is in and the
/// case's choices, as a typed input (`FuzzInput`; its `line` is what a report and a
/// shrunk transcript show, and reads back as the same input).
/// The first option of every choice is the simplest, so that shrinking, which lowers
/// choices towards 0, makes inputs simpler: a roll of the lowest faces before a bot's
/// move, a legal move before a wrong one.
///
/// What it makes: rolls (given values, the extremes among them, and faces a die does not
/// have; `roll keep` in a game that keeps dice), the bots' moves (so deep positions are reached), every action with the
/// arguments the rules list (`choices`, or a function of the position) and boundary or
/// wrong ones, out-of-turn inputs from other seats (anytime actions, rolls), plain
/// rolls from the game's generator, flagged rolls (tilt, too short), time passing,
/// undo and redo, restart, reload, and a smart die disconnecting and coming back.
struct FuzzInputGenerator {
    enum Kind: CaseIterable {
        case restart, roll, bot, action, outOfTurn, randomRoll, flaggedRoll, tick, undo, redo, reload, device
    }

    /// How often each kind comes (out of the sum), simplest first.
    /// A restart comes first: the moves that end a game then start the next one, and a
    /// shrunk case can put a plain restart where they were.
    static let weights: [(Kind, Int)] = [
        (.restart, 1), (.roll, 6), (.bot, 6), (.action, 6), (.outOfTurn, 2), (.randomRoll, 1), (.flaggedRoll, 1), (.tick, 1),
        (.undo, 1), (.redo, 1), (.reload, 1), (.device, 1),
    ]
    static let table: [Kind] = weights.flatMap { Array(repeating: $0.0, count: $0.1) }
    static let ticks = [0, 1, 250, 1000, 5000, 60_000]
    /// Arguments nobody lists: the boundaries and wrong types an action must refuse,
    /// typed as the REPL reads these words bare.
    static let wrongArguments: [[GameInput.Argument]] = [[], ["0"], ["-1"], ["1"], ["999999"], ["1.5"], ["x"], ["true"], ["1", "1", "1"]]
        .map { $0.map(GameSession.actionArgument) }

    /// Whether values of rolls must be given (a game with secret rolls: the secrets
    /// check changes them), rather than drawn from the game's generator.
    let givesRollValues: Bool

    init(rules: RuleSet) {
        givesRollValues = rules.secretRolls
    }

    func next(_ game: Game, _ choices: inout FuzzChoices) -> FuzzInput {
        let kind = Self.table[choices.draw(Self.table.count)]
        // Over, a move starts the next game; the same choices make a restart whether the
        // game is over or not, so shrinking can drop the moves that ended it.
        if game.isOver, [.roll, .bot, .action].contains(kind) { return .input(GameInput(.restart)) }
        func input(_ kind: GameInput.Kind, seat: String? = nil) -> FuzzInput { .input(GameInput(kind, seat: seat)) }
        switch kind {
        case .roll: return input(rollWithValues(game, &choices))
        case .bot: return input(.bot)
        case .action: return action(game, &choices, by: nil).map { input($0) } ?? input(rollWithValues(game, &choices))
        case .outOfTurn:
            let others = game.playerNames.filter { $0 != game.currentPlayer }
            guard let other = choices.pick(others) else { return input(rollWithValues(game, &choices)) }
            if choices.draw(3) == 0 { return input(rollWithValues(game, &choices), seat: other) }
            return input(action(game, &choices, by: other) ?? .roll(.random), seat: other)
        case .randomRoll: return input(givesRollValues ? rollWithValues(game, &choices) : .roll(.random))
        case .flaggedRoll: return input(.roll(.flagged(choices.draw(2) == 0 ? .tilt : .tooShort)))
        case .tick: return input(.tick(milliseconds: choices.pick(Self.ticks) ?? 0))
        case .undo: return .undo
        case .redo: return .redo
        case .restart: return input(choices.draw(3) == 0 ? .restart : .bot)
        case .reload: return input(choices.draw(4) == 0 ? .reload : .bot)
        case .device: return input(.device(.status(choices.draw(2) == 0 ? .disconnected : .connected, value: nil)))
        }
    }

    /// `roll V…`: faces of the current player's dice, now and then one a die lacks.
    func rollWithValues(_ game: Game, _ choices: inout FuzzChoices) -> GameInput.Kind {
        let dice = (try? game.dice(forSeat: game.seat(of: nil))) ?? game.rules.dice
        let sides = max(1, dice.sides)
        if game.rules.keepsDice, choices.draw(2) == 1 {
            // roll keep P… = V…: some dice of the last roll kept, the others given.
            var kept: [Int] = [], rolled: [Int] = []
            for position in 1...max(1, dice.count) {
                if choices.draw(2) == 1 { kept.append(position) } else { rolled.append(choices.draw(sides) + 1) }
            }
            return .roll(.keep(positions: kept, rolled: rolled.isEmpty ? nil : rolled))
        }
        var values: [Int] = []
        for _ in 0..<max(1, dice.count) {
            values.append(choices.draw(sides) + 1)
        }
        if choices.draw(16) == 15 { values[0] = choices.draw(2) == 0 ? 0 : sides + 1 }
        return .roll(.values(values))
    }

    /// An action of `player` (nil: whose turn it is; another player: an anytime action,
    /// or now and then one that is not) with listed arguments, or boundary and wrong ones.
    func action(_ game: Game, _ choices: inout FuzzChoices, by player: String?) -> GameInput.Kind? {
        var names = game.rules.actions
        if player != nil {
            let anytime = names.filter(game.rules.anytime.contains)
            if !anytime.isEmpty && choices.draw(4) != 0 { names = anytime }
        }
        guard let name = choices.pick(names) else { return nil }
        let lists = ((try? game.legalArguments(of: name, by: player)) ?? []).compactMap(Self.arguments)
        if !lists.isEmpty, choices.draw(8) != 7, let list = choices.pick(lists) {
            return .action(name: name, arguments: list)
        }
        return .action(name: name, arguments: choices.pick(Self.wrongArguments) ?? [])
    }

    /// A list of legal arguments as typed arguments (nil when it holds a value no action
    /// argument is: a table, a function, a float that is not finite). Strings that a bare
    /// word could not carry (a space, one that reads as a number) are left out too, as
    /// they were when a case was made of command lines, so a seed makes the cases it made.
    static func arguments(_ list: [LuaValue]) -> [GameInput.Argument]? {
        var arguments: [GameInput.Argument] = []
        for value in list {
            switch value {
            case .integer(let i): arguments.append(.integer(i))
            case .boolean(let b): arguments.append(.boolean(b))
            case .number(let d):
                guard d.isFinite else { return nil }
                arguments.append(.float(d))
            case .string(let s):
                guard !s.isEmpty, !s.contains(where: \.isWhitespace), GameSession.argument(s) == .string(s) else { return nil }
                arguments.append(.string(s))
            default: return nil
            }
        }
        return arguments
    }
}

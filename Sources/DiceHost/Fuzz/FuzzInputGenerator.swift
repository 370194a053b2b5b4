import Lua

/// Makes the next input of a fuzz case from the position the game is in and the
/// case's choices, as a command line of `dicehost play` (so a case is a transcript).
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
    static let ticks = ["0ms", "1ms", "250ms", "1s", "5s", "60s"]
    /// Arguments nobody lists: the boundaries and wrong types an action must refuse.
    static let wrongArguments: [[String]] = [[], ["0"], ["-1"], ["1"], ["999999"], ["1.5"], ["x"], ["true"], ["1", "1", "1"]]

    /// Whether values of rolls must be given (a game with secret rolls: the secrets
    /// check changes them), rather than drawn from the game's generator.
    let givesRollValues: Bool

    init(rules: RuleSet) {
        givesRollValues = rules.secretRolls
    }

    func next(_ game: Game, _ choices: inout FuzzChoices) -> String {
        let kind = Self.table[choices.draw(Self.table.count)]
        // Over, a move starts the next game; the same choices make a restart whether the
        // game is over or not, so shrinking can drop the moves that ended it.
        if game.isOver, [.roll, .bot, .action].contains(kind) { return "restart" }
        switch kind {
        case .roll: return rollWithValues(game, &choices)
        case .bot: return "bot"
        case .action: return action(game, &choices, by: nil) ?? rollWithValues(game, &choices)
        case .outOfTurn:
            let others = game.playerNames.filter { $0 != game.currentPlayer }
            guard let other = choices.pick(others) else { return rollWithValues(game, &choices) }
            if choices.draw(3) == 0 { return "as \(other) " + rollWithValues(game, &choices) }
            return action(game, &choices, by: other).map { "as \(other) \($0)" } ?? "as \(other) roll"
        case .randomRoll: return givesRollValues ? rollWithValues(game, &choices) : "roll"
        case .flaggedRoll: return choices.draw(2) == 0 ? "roll tilt" : "roll short"
        case .tick: return "tick " + (choices.pick(Self.ticks) ?? "0ms")
        case .undo: return "undo"
        case .redo: return "redo"
        case .restart: return choices.draw(3) == 0 ? "restart" : "bot"
        case .reload: return choices.draw(4) == 0 ? "reload" : "bot"
        case .device: return choices.draw(2) == 0 ? "device disconnected" : "device connected"
        }
    }

    /// `roll V…`: faces of the current player's dice, now and then one a die lacks.
    func rollWithValues(_ game: Game, _ choices: inout FuzzChoices) -> String {
        let dice = (try? game.dice(forSeat: game.seat(of: nil))) ?? game.rules.dice
        let sides = max(1, dice.sides)
        if game.rules.keepsDice, choices.draw(2) == 1 {
            // roll keep P… = V…: some dice of the last roll kept, the others given.
            var kept: [String] = [], rolled: [String] = []
            for position in 1...max(1, dice.count) {
                if choices.draw(2) == 1 { kept.append(String(position)) } else { rolled.append(String(choices.draw(sides) + 1)) }
            }
            return (["roll", "keep"] + kept + (rolled.isEmpty ? [] : ["="] + rolled)).joined(separator: " ")
        }
        var values: [String] = []
        for _ in 0..<max(1, dice.count) {
            values.append(String(choices.draw(sides) + 1))
        }
        if choices.draw(16) == 15 { values[0] = choices.draw(2) == 0 ? "0" : String(sides + 1) }
        return "roll " + values.joined(separator: " ")
    }

    /// An action of `player` (nil: whose turn it is; another player: an anytime action,
    /// or now and then one that is not) with listed arguments, or boundary and wrong ones.
    func action(_ game: Game, _ choices: inout FuzzChoices, by player: String?) -> String? {
        var names = game.rules.actions
        if player != nil {
            let anytime = names.filter(game.rules.anytime.contains)
            if !anytime.isEmpty && choices.draw(4) != 0 { names = anytime }
        }
        guard let name = choices.pick(names) else { return nil }
        let lists = ((try? game.legalArguments(of: name, by: player)) ?? []).compactMap(Self.words)
        if !lists.isEmpty, choices.draw(8) != 7, let list = choices.pick(lists) {
            return ([name] + list).joined(separator: " ")
        }
        let wrong = choices.pick(Self.wrongArguments) ?? []
        return ([name] + wrong).joined(separator: " ")
    }

    /// Arguments as words of a command line (nil when one cannot be typed: a string
    /// with spaces, or one that would read as a number).
    static func words(_ list: [LuaValue]) -> [String]? {
        var words: [String] = []
        for value in list {
            switch value {
            case .integer, .boolean: words.append(value.description)
            case .number(let d):
                guard d.isFinite else { return nil }
                words.append(value.description)
            case .string(let s):
                guard !s.isEmpty, !s.contains(where: \.isWhitespace), GameSession.argument(s) == .string(s) else { return nil }
                words.append(s)
            default: return nil
            }
        }
        return words
    }
}

import Foundation

/// The input commands of a session: a line's words parsed into a `GameInput` (the
/// queries - state, log, led, view, help, … - are not inputs and stay in `execute`).
extension GameSession {
    /// The input `command` with `args` names (by `player`, nil: the current one), nil
    /// when it is not an input command. Errors are the usage messages the REPL shows.
    func input(_ command: String, _ args: [GameInputLine.Word], player: String?) throws -> GameInput? {
        let texts = args.map(\.text)
        let kind: GameInput.Kind
        switch command {
        case "roll": kind = .roll(try rollInput(texts))
        case "tick":
            guard texts.count == 1 else { throw GameError.refused("usage: tick DURATION, e.g. 'tick 500ms' or 'tick 2s'") }
            guard let ms = Self.milliseconds(texts[0]) else {
                throw GameError.refused("tick takes a duration from 0 to 1 day (\(Self.maxTickMilliseconds)ms), e.g. 'tick 500ms' or 'tick 2s', got '\(texts[0])'")
            }
            kind = .tick(milliseconds: ms)
        case "restart": kind = .restart
        case "reload": kind = .reload
        case "bot":
            guard texts.isEmpty, player == nil else { throw GameError.refused("usage: bot (the current player's bot makes their move)") }
            kind = .bot
        case "skip" where !game.rules.actions.contains("skip"):  // an action of that name wins, as it always did
            guard texts.isEmpty, player == nil else { throw GameError.refused("usage: skip (the current player's turn passes on)") }
            kind = .skip
        case "device", "tilt", "sensor": kind = try deviceInput(command, texts)
        default:
            guard !Self.queryCommands.contains(command), game.rules.actions.contains(command) else { return nil }
            kind = .action(name: command, arguments: args.map { $0.quoted ? .string($0.text) : Self.actionArgument($0.text) })
        }
        return GameInput(kind, seat: player)
    }

    /// The commands that only look at the game: they win over an action of the same name.
    static let queryCommands: Set<String> = ["help", "as", "state", "view", "params", "players", "log", "led"]

    /// A bare word as an action argument: integers, numbers, true/false, else strings.
    static func actionArgument(_ text: String) -> GameInput.Argument {
        switch argument(text) {
        case .integer(let value): return .integer(value)
        case .number(let value): return .float(value)
        case .boolean(let value): return .boolean(value)
        default: return .string(text)
        }
    }

    /// roll [V...|tilt|short], roll keep P... [= V...].
    func rollInput(_ args: [String]) throws -> GameInput.RollInput {
        switch args.first {
        case nil: return .random
        case "tilt": return .flagged(.tilt)
        case "short", "too_short": return .flagged(.tooShort)
        case "keep":
            // roll keep P... [= V...]: the values after '=' are those of the dice rolled again.
            let words = args.dropFirst()
            let equals = words.firstIndex(of: "=")
            let positions = try words[..<(equals ?? words.endIndex)].map { arg -> Int in
                guard let position = Int(arg), (1...1000).contains(position) else {
                    throw GameError.refused("roll keep takes die positions, e.g. 'roll keep 1 3' (or 'roll keep 1 3 = 4 5' with the new dice's values), got '\(arg)'")
                }
                return position
            }
            let rolled = try equals.map { words[($0 + 1)...] }.map { try $0.map { arg -> Int in
                guard let value = Int(arg), (1...Self.maxRollValue).contains(value) else {
                    throw GameError.refused("a rolled value must be from 1 to \(Self.maxRollValue), got '\(arg)'")
                }
                return value
            } }
            return .keep(positions: positions, rolled: rolled)
        default:
            return .values(try args.map { arg -> Int in
                guard let v = Int(arg) else { throw GameError.refused("roll takes numbers, 'tilt' or 'short', got '\(arg)'") }
                guard (-Self.maxRollValue...Self.maxRollValue).contains(v) else {  // smaller values: the game says which faces exist
                    throw GameError.refused("a rolled value must be from 1 to \(Self.maxRollValue), got '\(arg)'")
                }
                return v
            })
        }
    }

    /// Applies `input` to the game, throwing what the REPL prints when it does not take.
    func applyThrowing(_ input: GameInput) throws {
        let outcome = game.apply(input)
        lastOutcome = outcome
        switch outcome {
        case .applied: return
        case .ruleFailure(let failure):
            if case .reload = input.kind { throw ReloadFailure(cause: .script(failure)) }
            throw GameError.script(failure)
        case .refused(_, let message):
            if case .reload = input.kind { throw ReloadFailure(cause: .refused(message)) }
            throw GameError.refused(message)
        }
    }
}

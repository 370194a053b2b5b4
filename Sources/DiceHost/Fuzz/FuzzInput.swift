/// One input of a fuzz case: a typed input the game applies (`GameInput`), or a step of
/// the session's history (`undo`, `redo`), which is not a game input. A case is printed
/// as REPL lines (`line`), which read back as the same inputs: a shrunk case is a
/// transcript that plays the same game.
public enum FuzzInput: Equatable, Sendable {
    case input(GameInput)
    case undo
    case redo

    /// The input as the REPL reads it back (`as Bob roll 3 4`, `tick 250ms`, `undo`).
    public var line: String {
        switch self {
        case .input(let input): return input.line
        case .undo: return "undo"
        case .redo: return "redo"
        }
    }

    /// Who makes it: the input's seat, nil for the current player (and for undo, redo).
    var seat: String? {
        if case .input(let input) = self { return input.seat }
        return nil
    }
}

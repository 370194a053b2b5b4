import Lua
/// What `dicehost fuzz` checks along a game, and what a rule test may ask for with a
/// `# check: …` line in its header (so a case fuzz found stays a test until the rules
/// are fixed). Each has a stable name: the one the header and `--json` use.
public enum FuzzCheck: String, CaseIterable, Sendable, Comparable {
    /// No hook fails or runs out of its budget (a refusal, `error(msg, 0)`, is fine).
    case noRuleError = "no-rule-error"
    /// A refused input leaves the game exactly as it was.
    case refusalUnchanged = "refusal-unchanged"
    /// With the bots playing on, the game ends within the move limit (no livelock).
    case ends = "ends"
    /// The same inputs played again give the same events.
    case deterministic = "deterministic"
    /// `undo` then `redo` gives back the same state and the same events.
    case undoRedo = "undo-redo"
    /// Changing only the dice hidden from a seat changes neither its view nor the events
    /// it receives (games with `secret_rolls` and a view).
    case secrets = "secrets"
    /// The rules' own `invariant(g)` hook does not raise.
    case invariant = "invariant"

    public static func < (a: FuzzCheck, b: FuzzCheck) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }

    /// Parses a comma-separated list ("no-rule-error, ends" or "all"); the error names
    /// what is known.
    public static func list(_ text: String) throws -> Set<FuzzCheck> {
        var checks = Set<FuzzCheck>()
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            if word == "all" { checks.formUnion(allCases); continue }
            guard let check = FuzzCheck(rawValue: word) else {
                throw FuzzCheckListError(word: word)
            }
            checks.insert(check)
        }
        return checks
    }

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

public struct FuzzCheckListError: Error, CustomStringConvertible {
    public let word: String
    public var description: String { "unknown check '\(word)' (the checks: \(FuzzCheck.names), or all)" }
}

/// A check that failed: which, after which input (1-based; nil when it failed at the
/// end of the inputs: `ends`, `deterministic`, `secrets`), and what happened.
public struct FuzzFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public var check: FuzzCheck
    public var input: Int?
    public var message: String
    /// The script line the Lua error points at (a rule error, a broken invariant), when
    /// it names one: two failures of the same check at different lines are two bugs.
    public var location: ScriptLocation?

    public init(check: FuzzCheck, input: Int?, message: String, location: ScriptLocation? = nil) {
        self.check = check
        self.input = input
        self.message = message
        self.location = location
    }

    /// A script file and line, as a Lua error names them.
    public struct ScriptLocation: Equatable, Hashable, Sendable {
        public var file: String
        public var line: Int

        /// Where `error` points, if it is a Lua error (bare or in a `GameError`) with a line.
        public init?(of error: Error) {
            let lua: LuaError
            switch error {
            case let failure as LuaError: lua = failure
            case GameError.script(let failure): lua = failure
            default: return nil
            }
            guard let file = lua.file, let line = lua.line else { return nil }
            self.file = file
            self.line = line
        }
    }

    public var description: String { "\(check.rawValue): \(message)" }
}

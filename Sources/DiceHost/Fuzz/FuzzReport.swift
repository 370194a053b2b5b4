import Foundation

/// What a fuzz run did and found: the counts, and the failing case before and after
/// shrinking. `transcript(for:)` writes the shrunk case as a rule test that fails until
/// the rules are fixed.
public struct FuzzReport: Sendable {
    public struct Found: Sendable {
        public var caseNumber: Int
        public var original: FuzzCase
        public var shrunk: FuzzCase
        public var shrinkRuns: Int
        public var shrinkSeconds: Double
    }

    public var rules: String
    public var rulesFile: String
    public var players: [String]
    public var params: [String]
    public var seed: UInt64
    public var checks: [FuzzCheck]
    public var inputs: Int
    public var cases: Int
    public var seconds: Double
    /// Ctrl-C ended the run early.
    public var stopped: Bool
    public var found: Found?

    public var inputsPerSecond: Double { seconds > 0 ? Double(inputs) / seconds : 0 }

    /// The summary lines `dicehost fuzz` prints.
    public var lines: [String] {
        var lines = ["fuzzed \(rules) (\(players.joined(separator: ", "))): \(inputs) inputs in \(cases) games, "
                     + String(format: "%.1f s (%.0f inputs/s), seed %llu", seconds, inputsPerSecond, seed)
                     + (stopped ? ", stopped early" : "")]
        lines.append("checks: " + checks.map(\.rawValue).joined(separator: ", "))
        guard let found, let failure = found.shrunk.failure else {
            lines.append("nothing found")
            return lines
        }
        lines.append("FOUND \(failure.check.rawValue) in game \(found.caseNumber + 1) after \(found.original.inputs.count) inputs: "
                     + (found.original.failure?.message ?? failure.message))
        lines.append("shrunk to \(found.shrunk.inputs.count) input\(found.shrunk.inputs.count == 1 ? "" : "s") "
                     + String(format: "in %.2f s (%d replays):", found.shrinkSeconds, found.shrinkRuns))
        lines.append("  seed: \(found.shrunk.gameSeed)")
        for (input, output) in zip(found.shrunk.inputs, found.shrunk.outputs) {
            lines.append("  > " + input)
            lines += output.prefix(6).map { "    " + $0 }
        }
        lines.append("  " + failure.description)
        return lines
    }

    /// The shrunk case as a rule test at `file`: the header names the rules (relative to
    /// the test), players, seed and params, and asks for the check that failed with a
    /// `# check:` line; `# output: unchecked` because the test is about that check (the
    /// output will change when the rules are fixed). Each input's output today follows
    /// it as comments.
    public func transcript(for file: String) -> String? {
        guard let found, let failure = found.shrunk.failure else { return nil }
        var lines = [
            "# Found by dicehost fuzz (seed \(seed), game \(found.caseNumber + 1)): \(found.original.inputs.count) inputs, shrunk to \(found.shrunk.inputs.count).",
            "# It fails until the rules are fixed: \(GameEvent.oneLine(failure.description))",
            "# check: \(failure.check.rawValue)",
            "# output: unchecked",
            "rules: \(Transcript.relativePath(rulesFile, from: file))",
            "players: \(players.joined(separator: ", "))",
            "seed: \(found.shrunk.gameSeed)",
        ]
        lines += params.map { "set: \($0)" }
        lines.append("")
        for (input, output) in zip(found.shrunk.inputs, found.shrunk.outputs) {
            lines.append("> " + input)
            lines += output.map { "#   " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The report for tools (`--json`).
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "rules": .string(rules), "rules_file": .string(rulesFile), "players": .array(players.map(JSONValue.string)),
            "params": .array(params.map(JSONValue.string)), "seed": .unsigned(seed),
            "checks": .array(checks.map { .string($0.rawValue) }),
            "inputs": .integer(Int64(inputs)), "games": .integer(Int64(cases)), "seconds": .number(seconds),
            "inputs_per_second": .number(inputsPerSecond), "stopped": .bool(stopped), "found": .null,
        ]
        if let found, let failure = found.shrunk.failure {
            object["found"] = .object([
                "check": .string(failure.check.rawValue), "message": .string(failure.message),
                "original_message": .string(found.original.failure?.message ?? ""),
                "game": .integer(Int64(found.caseNumber + 1)), "original_inputs": .integer(Int64(found.original.inputs.count)),
                "game_seed": .unsigned(found.shrunk.gameSeed),
                "inputs": .array(found.shrunk.inputs.map(JSONValue.string)),
                "shrink_seconds": .number(found.shrinkSeconds), "shrink_replays": .integer(Int64(found.shrinkRuns)),
            ])
        }
        return .object(object)
    }
}

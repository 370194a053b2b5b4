import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Solve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Best play: each seat's chance of winning when every seat plays its best.",
            discussion: """
                Follows every position any sequence of legal moves can reach: roll (every outcome
                of the declared dice) and every declared action with each of its declared
                choices; a move the rules refuse from a position (error(msg, 0)) is not legal
                there. Each player maximises their own probability of winning (two players:
                optimal play of the zero-sum game; more: each seat for itself, no coalitions).
                Cycles are solved by value iteration to --tolerance; the report says how far it
                got. The rules' bot is not asked. Exits 1 when the game is not analysable or
                has more than --max-states positions.
                """
        )

        @Argument(help: "The rule script, e.g. examples/rules/pig.lua.")
        var rules: String

        @Option(help: "Comma-separated player names (default: the smallest table the rules allow).")
        var players: String?

        @Option(name: .customLong("set"), help: "Override a param, e.g. --set target=50 (repeatable).")
        var overrides: [String] = []

        @Option(help: "The most positions to explore before giving up.")
        var maxStates = 4_000_000

        @Option(help: "Stop exploring when the process holds this much memory, e.g. 8G, 500M (default 8G).")
        var maxMemory = "8G"

        @Option(help: "Stop value iteration once no value changes by more than this in a sweep.")
        var tolerance = 1e-12

        @Option(help: "Write the best-play policy as a Lua module a rule script's bot can require.")
        var policy: String?

        @Flag(help: "Also print the policy compactly: for Pig-like games the hold threshold by both scores, else the best moves by each field's value.")
        var explain = false

        @Flag(help: "Print the result as JSON.")
        var json = false

        @Flag(help: "No progress line on standard error.")
        var quiet = false

        func run() throws {
            var options = BestPlay.Options()
            do {
                options.params = try overrides.map(GameOptions.parseOverride)
                guard maxStates >= 1 else { throw GameOptions.UsageError(description: "--max-states must be at least 1, got \(maxStates)") }
                guard tolerance > 0, tolerance < 1 else {
                    throw GameOptions.UsageError(description: "--tolerance must be between 0 and 1 (e.g. 1e-12), got \(tolerance)")
                }
                options.maxStates = maxStates
                options.maxMemory = try MemorySize.parse(maxMemory, option: "--max-memory")
                options.tolerance = tolerance
                options.writesPolicy = policy != nil
                options.explains = explain
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            options.players = try DiceHostCommand.Play.players(players, rules: rules, params: options.params)
            let result = try AnalysisProgress.run(rules, quiet: quiet) { progress in
                try BestPlay.solve(rulesFile: rules, options: options, progress: progress)
            }
            if let policy, let module = result.policyModule {
                let isOurs = (try? String(contentsOfFile: policy, encoding: .utf8))?.hasPrefix("-- Best play for ") ?? true
                do {
                    try SafeFileWriter(protectedPaths: [rules], force: isOurs).write(module, to: policy)
                } catch {
                    printError("dicehost: --policy: \(error)")
                    throw ExitStatus.failure
                }
            }
            print(json ? SolveReport.json(result) : SolveReport.text(result))
            if !json, let explanation = result.explanation { print("\n" + SolveReport.explain(explanation)) }
        }
    }
}

/// How `dicehost solve` shows a result.
enum SolveReport {
    static func text(_ r: BestPlay.Result) -> String {
        var head = "\(r.rules) (\(r.rulesFile)), \(r.players.joined(separator: ", "))"
        if !r.params.isEmpty { head += ", " + r.params.joined(separator: " ") }
        var lines = [head, "best play: each player maximises their own chance of winning"
                     + (r.players.count > 2 ? " (each seat for itself; no coalitions)" : "")]
        lines.append("\(r.states) positions, \(r.decisions) where a player decides, \(r.moves) legal moves")
        lines.append(String(format: "value iteration: %d sweeps, largest change in the last %.1e (tolerance %.1e)%@",
                            r.sweeps, r.residual, r.tolerance, r.converged ? "" : " — NOT converged: raise the sweeps or loosen --tolerance"))
        lines.append(String(format: "explored in %.2f s, solved in %.2f s; memory: Lua heap %.1f MiB, process %.1f MiB",
                            r.exploreSeconds, r.solveSeconds, Double(r.luaMemoryPeak) / 1048576, Double(r.processMemoryPeak) / 1048576))
        lines.append("")
        lines.append("seat            win under best play")
        for (seat, name) in r.players.enumerated() {
            lines.append(name.padding(toLength: max(16, name.count + 1), withPad: " ", startingAt: 0) + String(format: "%.6f", r.wins[seat]))
        }
        if r.draw > 0 { lines.append("draw".padding(toLength: 16, withPad: " ", startingAt: 0) + String(format: "%.6f", r.draw)) }
        if r.neverEnds > 1e-9 { lines.append("never ends".padding(toLength: 16, withPad: " ", startingAt: 0) + String(format: "%.6f", r.neverEnds)) }
        if let first = r.firstMove { lines.append("\nbest first move: \(first)") }
        if !r.moveCounts.isEmpty {
            lines.append("best moves by position: " + r.moveCounts.prefix(8).map { "\($0.0) \($0.1)" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ r: BestPlay.Result) -> String {
        var object: [String: Any] = [
            "rules": r.rules, "rulesFile": r.rulesFile, "players": r.players, "params": r.params,
            "wins": Dictionary(uniqueKeysWithValues: zip(r.players, r.wins)), "winsBySeat": r.wins,
            "draw": r.draw, "neverEnds": r.neverEnds, "states": r.states, "decisions": r.decisions, "moves": r.moves,
            "sweeps": r.sweeps, "residual": r.residual, "tolerance": r.tolerance, "converged": r.converged,
            "droppedLastRoll": r.droppedLastRoll, "exploreSeconds": r.exploreSeconds, "solveSeconds": r.solveSeconds,
            "luaMemoryPeak": r.luaMemoryPeak, "processMemoryPeak": r.processMemoryPeak,
            "moveCounts": Dictionary(uniqueKeysWithValues: r.moveCounts.map { ($0.0, $0.1) }),
        ]
        if let first = r.firstMove { object["firstMove"] = first }
        if let e = r.explanation { object["explain"] = explainObject(e) }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// `--explain`: the threshold table of a Pig-like game, else the moves by field value.
    static func explain(_ e: PolicyExplanation) -> String {
        if let t = e.threshold { return threshold(t) }
        var lines = ["best moves of the \(e.positions) positions where a player decides, by the value of each field "
                     + "(me: the player deciding; fields with one value left out):"]
        if e.byField.isEmpty { lines.append("  (no field takes more than one value)") }
        for field in e.byField {
            lines.append("  \(field.field):")
            for (value, moves) in field.values.prefix(16) {
                lines.append("    " + OddsReport.pad(value, 10) + moves.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
            }
            if field.values.count > 16 { lines.append("    (\(field.values.count - 16) more values)") }
        }
        return lines.joined(separator: "\n")
    }

    static func threshold(_ t: PolicyExplanation.Threshold) -> String {
        let width = t.largestScore < 20 ? 1 : (t.largestScore + 10) / 10
        // Only buckets holding a score the game reaches (Pig never has a score of 1).
        let reached = Set(t.cells.keys).union(t.cells.values.flatMap(\.keys))
        let buckets = stride(from: 0, through: t.largestScore, by: width).filter { b in (b..<b + width).contains { reached.contains($0) } }
        func label(_ from: Int) -> String { width == 1 ? String(from) : "\(from)-\(from + width - 1)" }
        // The cell at the lowest scores of a bucket that the game reaches.
        func cell(_ i0: Int, _ j0: Int) -> (at: Int?, clean: Bool)? {
            for i in i0..<i0 + width { for j in j0..<j0 + width { if let c = t.cells[i]?[j] { return c } } }
            return nil
        }
        let column = max(6, label(buckets.last ?? 0).count + 1)
        var lines = ["best play: \(t.action) once \(t.turnField) reaches the number shown, by \(t.scoreField) "
                     + "(rows: mine, columns: the opponent's" + (width > 1 ? "; each cell at the lowest scores of its bucket" : "") + ")",
                     "'-': never \(t.action), roll on; '*': rolling and \(t.action) interleave above the number", ""]
        lines.append(OddsReport.pad("me \\ opp", 10) + buckets.map { $0 == buckets.last ? label($0) : OddsReport.pad(label($0), column) }.joined())
        for i in buckets {
            var line = OddsReport.pad(label(i), 10)
            for j in buckets {
                let text: String
                if let c = cell(i, j) { text = (c.at.map(String.init) ?? "-") + (c.clean ? "" : "*") } else { text = "" }
                line += j == buckets.last ? text : OddsReport.pad(text, column)
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    static func explainObject(_ e: PolicyExplanation) -> [String: Any] {
        if let t = e.threshold {
            var cells: [String: [String: Any]] = [:]
            for (i, row) in t.cells {
                for (j, c) in row {
                    cells[String(i), default: [:]][String(j)] = ["at": c.at.map { $0 as Any } ?? NSNull(), "clean": c.clean]
                }
            }
            return ["action": t.action, "turnField": t.turnField, "scoreField": t.scoreField, "threshold": cells]
        }
        return ["byField": Dictionary(uniqueKeysWithValues: e.byField.map { f in
            (f.field, Dictionary(uniqueKeysWithValues: f.values.map { ($0.value, Dictionary(uniqueKeysWithValues: $0.moves.map { ($0.0, $0.1) })) }))
        })]
    }
}

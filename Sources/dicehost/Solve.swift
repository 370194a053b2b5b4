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
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            options.players = try DiceHostCommand.Play.players(players, rules: rules, params: options.params)
            let showsProgress = !quiet && isatty(STDERR_FILENO) != 0
            let result: BestPlay.Result
            do {
                defer { if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) } }
                result = try BestPlay.solve(rulesFile: rules, options: options) { line in
                    if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K\(rules): \(line)".utf8)) }
                }
            } catch let error as OddsError {
                printError("\(rules): \(error)")
                throw ExitStatus.failure
            } catch let error as GameError {
                printError("\(error)")
                throw ExitStatus.scriptDoesNotLoad
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
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Sim: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play many games with the rules' bots and report win rates, lengths and metrics.",
            discussion: """
                Game i is seeded from --seed and i, so the result is the same for any --threads
                and any split into shards. A study can be spread over machines: run each shard
                with --shard i/n --json > part-i.json, then `dicehost sim merge part-*.json`.
                """,
            subcommands: [Run.self, Merge.self],
            defaultSubcommand: Run.self
        )
    }
}

extension DiceHostCommand.Sim {
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Simulate games of a rule script (the default: `dicehost sim RULES …`)."
        )

        @Argument(help: "The rule script, e.g. rules/craps.lua.")
        var rules: String

        @Option(help: "How many games to play.")
        var games = 10_000

        @Option(help: "Seed of the study (default: random, printed).")
        var seed: UInt64?

        @Option(help: "Worker threads, one Lua state each (default: the machine's cores).")
        var threads = ProcessInfo.processInfo.activeProcessorCount

        @Option(help: "Comma-separated player names (default: the smallest table the rules allow).")
        var players: String?

        @Option(name: .customLong("set"), help: "Override a param, e.g. --set rounds=1 (repeatable).")
        var overrides: [String] = []

        @Option(help: "A second rule script to play with the same seeds, reported side by side.")
        var compare: String?

        @Option(help: "Play only shard i of n of the games, e.g. --shard 2/8 (merge the --json outputs).")
        var shard: String?

        @Option(help: "Moves after which a game that has not ended counts as unfinished.")
        var moveLimit = 10_000

        @Flag(help: "Print the result as JSON (the input of `dicehost sim merge`).")
        var json = false

        func run() throws {
            var plan: Simulation.Plan
            do {
                plan = Simulation.Plan(rulesFile: rules, games: games, seed: seed ?? UInt64.random(in: 0...999_999))
                plan.params = try overrides.map(GameOptions.parseOverride)
                plan.threads = threads
                plan.moveLimit = moveLimit
                if let shard { plan.shard = try Self.parseShard(shard) }
                if let problem = Simulation.problem(with: plan) { throw GameOptions.UsageError(description: problem) }
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            plan.players = try DiceHostCommand.Play.players(players, rules: rules, params: plan.params)
            if seed == nil && !json { print("seed \(plan.seed)") }
            let first = try simulate(plan, label: compare == nil ? nil : rules)
            guard let compare else {
                if let warning = SimReport.unfinishedWarning(first) { printError("dicehost: " + warning) }
                print(json ? SimReport.json(first) : SimReport.text(first))
                if first.errors > 0 { throw ExitStatus.failure }
                return
            }
            var other = plan
            other.rulesFile = compare
            let second = try simulate(other, label: compare)
            print(json ? SimReport.json(first, comparedWith: second) : SimReport.text(first, comparedWith: second))
            if first.errors + second.errors > 0 { throw ExitStatus.failure }
        }

        func simulate(_ plan: Simulation.Plan, label: String?) throws -> SimulationResult {
            let bar = ProgressBar(total: plan.range.count, label: label)
            defer { bar.finish() }
            do {
                return try Simulation.run(plan) { bar.update($0) }
            } catch let error as Simulation.PlanError {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            } catch {
                printError("\(error)")
                throw ExitStatus.scriptDoesNotLoad
            }
        }

        static func parseShard(_ text: String) throws -> (index: Int, count: Int) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), (1...Simulation.maxShards).contains(n), (1...n).contains(i) else {
                throw GameOptions.UsageError(description: "--shard expects i/n with 1 <= i <= n <= \(Simulation.maxShards), e.g. 3/8, got '\(text)'")
            }
            return (i, n)
        }
    }

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the --json results of the shards of one study into its whole result."
        )

        @Argument(help: "JSON files written by `dicehost sim … --shard i/n --json`.")
        var files: [String]

        @Flag(help: "Print the merged result as JSON.")
        var json = false

        func run() throws {
            guard !files.isEmpty else {
                printError("dicehost: sim merge needs at least one result file")
                throw ExitStatus.usage
            }
            var merged: SimulationResult?
            for file in files {
                do {
                    let result = try SimulationResult.decode(json: SimReport.read(file))
                    merged = try merged.map { try $0.merging(result) } ?? result
                } catch {
                    printError("dicehost: \(file): \(SimReport.describe(error))")
                    throw ExitStatus.failure
                }
            }
            guard let merged else { return }
            if !merged.missingRanges.isEmpty {
                let gaps = merged.missingRanges.map { "\($0[0])..<\($0[1])" }.joined(separator: ", ")
                printError("dicehost: warning: the merged shards do not cover games \(gaps) of \(merged.study.games)")
            }
            print(json ? SimReport.json(merged) : SimReport.text(merged))
        }
    }
}

/// A progress bar with an estimate of the time left, on standard error when it is a terminal.
final class ProgressBar {
    let total: Int
    let label: String?
    let enabled = isatty(STDERR_FILENO) != 0
    let started = Date()
    var drawn = false

    init(total: Int, label: String?) {
        self.total = max(total, 1)
        self.label = label
    }

    func update(_ done: Int) {
        guard enabled else { return }
        let fraction = Double(done) / Double(total)
        let width = 30, filled = min(width, max(0, Int(min(1, max(0, fraction)) * Double(width))))
        let elapsed = Date().timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let left = rate > 0 ? Double(total - done) / rate : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let prefix = label.map { "\($0) " } ?? ""
        let line = String(format: "\r%@%@ %3.0f%% %d/%d games, %.0f games/s, %@ left ", prefix, bar, fraction * 100, done, total, rate,
                          Self.duration(left))
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    func finish() {
        guard enabled, drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    static func duration(_ seconds: Double) -> String {
        let seconds = seconds.isFinite ? min(max(seconds, 0), 1e12) : 0  // an estimate: never trap on a wild one
        return seconds < 60 ? String(format: "%.0fs", seconds) : String(format: "%dm%02ds", Int(seconds) / 60, Int(seconds) % 60)
    }
}

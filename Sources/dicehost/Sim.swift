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

        @OptionGroup var table: TableOptions

        @Option(help: "A second rule script to play with the same seeds, reported side by side.")
        var compare: String?

        @Option(help: "Play only shard i of n of the games, e.g. --shard 2/8 (merge the --json outputs).")
        var shard: String?

        @Option(help: "Moves after which a game that has not ended counts as unfinished.")
        var moveLimit = 10_000

        @Option(help: "One study per value of a param, e.g. --sweep target=10..60:10: each seat's win rate with its 95% interval, the fairest value marked.")
        var sweep: String?

        @Option(help: "With --sweep: also draw the rows as an SVG line chart into this file.")
        var chart: String?

        @Flag(help: "Print the result as JSON (the input of `dicehost sim merge`).")
        var json = false

        @Option(help: "Also write one CSV row per game (seed, outcome, winner, rolls, turns, each metric) to this file.")
        var csv: String?

        @Flag(help: "Let --csv replace an existing file that is not a CSV this command wrote.")
        var force = false

        func run() throws {
            var plan: Simulation.Plan
            do {
                plan = Simulation.Plan(rulesFile: rules, games: games, seed: seed ?? UInt64.random(in: 0...999_999))
                plan.params = table.params
                plan.threads = threads
                plan.moveLimit = moveLimit
                if let shard { plan.shard = try Self.parseShard(shard) }
                if let problem = Simulation.problem(with: plan) { throw GameOptions.UsageError(description: problem) }
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            plan.players = try table.playerNames(rules: rules)
            if let sweep { return try runSweep(sweep, plan) }
            if chart != nil {
                printError("dicehost: --chart draws a --sweep; add --sweep param=first..last[:step]")
                throw ExitStatus.usage
            }
            let table = try csv.map { try SimCSV(path: $0, force: force, games: plan.range.count * (compare == nil ? 1 : 2),
                                                 rules: [rules] + (compare.map { [$0] } ?? [])) }
            plan.gameFinished = table.map { table in { @Sendable [rules] game in table.add(game, rules: rules) } }
            let stop = SimulationStop()
            plan.stop = stop
            SimInterrupt.install()
            if seed == nil && !json { print("seed \(plan.seed)") }
            let bar = ProgressBar(total: plan.range.count * (compare == nil ? 1 : 2))
            defer { bar.finish() }
            let first = try simulate(plan, bar: bar, label: compare == nil ? nil : rules, stop: stop)
            defer { table?.write() }
            if stop.isRequested {
                bar.finish()
                printPartial(first, planned: plan.range.count)
                throw ExitStatus.failure
            }
            guard let compare else {
                if let warning = SimReport.unfinishedWarning(first) { printError("dicehost: " + warning) }
                print(json ? SimReport.json(first) : SimReport.text(first))
                if first.errors > 0 { throw ExitStatus.failure }
                return
            }
            var other = plan
            other.rulesFile = compare
            other.gameFinished = table.map { table in { @Sendable game in table.add(game, rules: compare) } }
            let second = try simulate(other, bar: bar, label: compare, stop: stop)
            bar.finish()
            if stop.isRequested {
                print(json ? SimReport.json(first) : SimReport.text(first))
                printPartial(second, planned: plan.range.count)
                throw ExitStatus.failure
            }
            for (label, result) in [("A", first), ("B", second)] {
                if let warning = SimReport.unfinishedWarning(result) { printError("dicehost: \(label): " + warning) }
            }
            print(json ? SimReport.json(first, comparedWith: second) : SimReport.text(first, comparedWith: second))
            if first.errors + second.errors > 0 { throw ExitStatus.failure }
        }

        /// `--sweep`: one study per value (the same seed for each), a row each.
        func runSweep(_ text: String, _ base: Simulation.Plan) throws {
            let sweep: Sweep
            do {
                sweep = try Sweep.parse(text)
                if compare != nil || shard != nil || csv != nil {
                    throw GameOptions.UsageError(description: "--sweep does not combine with --compare, --shard or --csv")
                }
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            if seed == nil && !json { print("seed \(base.seed)") }
            let stop = SimulationStop()
            SimInterrupt.install()
            let bar = ProgressBar(total: base.range.count * sweep.values.count)
            var rows: [Sweep.Row] = []
            var results: [SimulationResult] = []
            for value in sweep.values {
                var plan = base
                plan.params = base.params.filter { $0.0 != sweep.param } + [(sweep.param, String(value))]
                plan.stop = stop
                let result = try simulate(plan, bar: bar, label: "\(sweep.param)=\(value)", stop: stop)
                if stop.isRequested {
                    bar.finish()
                    printError("dicehost: stopped by Ctrl-C at \(sweep.param)=\(value); no rows printed")
                    throw ExitStatus.failure
                }
                if result.errors > 0 {
                    bar.finish()
                    print(SimReport.text(result))
                    throw ExitStatus.failure
                }
                results.append(result)
                let estimates = result.wins.map { Estimate.proportion($0, of: result.games) }
                rows.append(Sweep.Row(value: value, wins: estimates.map(\.value),
                                      length: result.rolls.count > 0 ? result.rolls.mean : nil,
                                      intervals: estimates.map { ($0.lower, $0.upper) }))
            }
            bar.finish()
            let players = results.first?.study.players ?? []
            let name = results.first?.study.rules ?? rules
            if let chart {
                let title = "\(name): win rate by \(sweep.param) (\(base.range.count) games each, 95% intervals)"
                try Sweep.writeChart(rows, players: players, param: sweep.param, title: title, to: chart, rules: rules)
            }
            if json {
                print(Sweep.json(rows, players: players, param: sweep.param, fields: ["seed": base.seed]) { i in
                    ["games": results[i].games, "unfinished": results[i].unfinished,
                     "intervals": Dictionary(uniqueKeysWithValues: zip(players, (rows[i].intervals ?? []).map { [$0.lower, $0.upper] }))]
                })
            } else {
                print("\(name) (\(rules)): win rates in \(base.range.count) games per value (95% intervals), by \(sweep.param)")
                print(Sweep.table(rows, players: players, param: sweep.param, lengthTitle: "mean rolls"))
            }
        }

        /// Ctrl-C stopped the study: what was played so far, marked partial.
        func printPartial(_ result: SimulationResult, planned: Int) {
            let notice = "PARTIAL RESULT: stopped by Ctrl-C after \(result.games) of \(planned) games (the games played in order from the first)"
            if json { printError("dicehost: " + notice) } else { print(notice) }  // --json output stays JSON
            print(json ? SimReport.json(result) : SimReport.text(result))
        }

        func simulate(_ plan: Simulation.Plan, bar: ProgressBar, label: String?, stop: SimulationStop) throws -> SimulationResult {
            bar.label = label
            let offset = bar.done
            do {
                return try Simulation.run(plan) { played in
                    if SimInterrupt.takePending() { stop.request() }
                    bar.update(offset + played)
                }
            } catch let error as Simulation.PlanError {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            } catch {
                throw ExitStatus.loadFailure(error)
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

/// A progress bar with an estimate of the time left, on standard error when it is a
/// terminal: one line, cut to the terminal's width and redrawn in place (with `--compare`
/// one bar runs over both studies, so the time left counts both).
final class ProgressBar {
    let total: Int
    var label: String?
    let enabled = isatty(STDERR_FILENO) != 0
    let started = Date()
    var drawn = false
    private(set) var done = 0

    init(total: Int, label: String? = nil) {
        self.total = max(total, 1)
        self.label = label
    }

    func update(_ done: Int) {
        self.done = done
        guard enabled else { return }
        let elapsed = Date().timeIntervalSince(started)
        let line = Self.line(done: done, total: total, elapsed: elapsed, label: label, width: Self.terminalWidth())
        FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
        drawn = true
    }

    /// The bar's text, at most `width - 1` characters (a full last column would wrap).
    static func line(done: Int, total: Int, elapsed: Double, label: String?, width: Int) -> String {
        let fraction = min(1, max(0, Double(done) / Double(max(total, 1))))
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let left = rate > 0 ? Double(max(total - done, 0)) / rate : 0
        let prefix = label.map { "\($0) " } ?? ""
        let numbers = String(format: " %3.0f%% %d/%d games, %.0f games/s, %@ left", fraction * 100, done, total, rate, duration(left))
        let room = width - 1 - prefix.count - numbers.count
        let barWidth = min(30, room)
        var text: String
        if barWidth >= 5 {
            let filled = Int(fraction * Double(barWidth))
            text = prefix + String(repeating: "█", count: filled) + String(repeating: "·", count: barWidth - filled) + numbers
        } else {
            text = String(format: "%3.0f%% %@ left", fraction * 100, duration(left))
        }
        if text.count > width - 1 { text = String(text.prefix(max(width - 1, 0))) }
        return text
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    func finish() {
        guard enabled, drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }

    static func duration(_ seconds: Double) -> String {
        let seconds = seconds.isFinite ? min(max(seconds, 0), 1e12) : 0  // an estimate: never trap on a wild one
        return seconds < 60 ? String(format: "%.0fs", seconds) : String(format: "%dm%02ds", Int(seconds) / 60, Int(seconds) % 60)
    }
}

/// A parent (a test runner, a job control shell) may hand down SIGINT and SIGTERM
/// blocked; Ctrl-C must still reach a long-running command.
func unblockInterrupts() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
}

/// Ctrl-C during `sim`: noted by the signal handler, turned into a stop request by the
/// progress callback (the handler itself only sets a flag).
enum SimInterrupt {
    private static let pending: UnsafeMutablePointer<sig_atomic_t> = {
        let p = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()

    static func install() {
        _ = pending
        signal(SIGINT) { _ in SimInterrupt.pending.pointee = 1 }
        unblockInterrupts()
    }

    static func takePending() -> Bool {
        defer { pending.pointee = 0 }
        return pending.pointee != 0
    }
}

import ArgumentParser
import DiceHost
import Foundation
import Lua

extension DiceHostCommand {
    struct Fuzz: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play random legal inputs from every seat, check the game after each, and shrink a failure to a rule test.",
            discussion: """
                Inputs: rolls (given values, the extremes, faces a die lacks), flagged rolls, the bots' moves, every action with the arguments the rules list (rules.choices) and wrong ones, anytime actions from other seats, time passing, undo/redo, restart, reload, a smart die disconnecting.

                Checks (--checks, default all): \(FuzzCheck.names).

                The first failure is shrunk to the fewest inputs and smallest values (every shrunk case is a legal game) and printed; --save DIR writes it as a rule test that fails until the rules are fixed (docs/scripting.md, "Finding bugs with fuzz").

                --coverage adds, per rule script, the lines random play ran and those it never reached ("coverage rules/pig.lua: 40 of 42 lines run (95%); never run: 17, 23-24"; "coverage" in --json).

                Exit status: 0 nothing found, 1 found, 2 bad usage, 3 the script does not load.
                """
        )

        @Argument(help: "The rule script, e.g. rules/race.lua.")
        var rules: String

        @OptionGroup var table: TableOptions

        @Option(help: "Fuzz this long (default 10 seconds unless --inputs is given).")
        var seconds: Double?

        @Option(help: "Fuzz this many inputs (whole games; with one thread the run is the same every time).")
        var inputs: Int?

        @Option(help: "The seed of the fuzzer's choices and the games' seeds.")
        var seed: UInt64 = 0

        @Option(help: "Write the shrunk failing case into this folder as a rule test.")
        var save: String?

        @Option(help: "Worker threads.")
        var threads: Int = 1

        @Option(help: "Which checks, comma-separated (default all): \(FuzzCheck.names).")
        var checks: String = "all"

        @Option(help: "Inputs per game before the bots play it to its end.")
        var inputsPerGame: Int = 40

        @Option(help: "Bot moves a game gets to end in (the 'ends' check).")
        var moveLimit: Int = 10_000

        @Option(help: "The longest shrinking may take, in seconds.")
        var shrinkSeconds: Double = 60

        @Flag(help: "Print the report as JSON.")
        var json = false

        @Flag(help: "No progress line on standard error.")
        var quiet = false

        @Flag(help: "Also report the lines of the rule script (and its modules) random play never ran.")
        var coverage = false

        func validate() throws {
            if let seconds, !(seconds > 0 && seconds <= 86_400) { throw ValidationError("--seconds must be from 0 to 86400, got \(seconds)") }
            if let inputs, !(1...1_000_000_000).contains(inputs) { throw ValidationError("--inputs must be from 1 to 1000000000, got \(inputs)") }
            if !(1...Fuzzer.maxThreads).contains(threads) { throw ValidationError("--threads must be from 1 to \(Fuzzer.maxThreads), got \(threads)") }
            if !(1...10_000).contains(inputsPerGame) { throw ValidationError("--inputs-per-game must be from 1 to 10000, got \(inputsPerGame)") }
            if !(1...1_000_000).contains(moveLimit) { throw ValidationError("--move-limit must be from 1 to 1000000, got \(moveLimit)") }
            if !(shrinkSeconds >= 0 && shrinkSeconds <= 86_400) { throw ValidationError("--shrink-seconds must be from 0 to 86400, got \(shrinkSeconds)") }
            do { _ = try FuzzCheck.list(checks) } catch { throw ValidationError("--checks: \(error)") }
        }

        func run() throws {
            let params = table.params
            let names = try table.playerNames(rules: rules)
            var chosen = try FuzzCheck.list(checks)
            if chosen.isEmpty { chosen = Set(FuzzCheck.allCases) }
            var plan = Fuzzer.Plan(game: FuzzGame(rulesFile: rules, players: names, params: params, checks: chosen,
                                                  inputsPerCase: inputsPerGame, moveLimit: moveLimit),
                                   seed: seed, inputs: inputs, seconds: seconds, threads: threads, shrinkSeconds: shrinkSeconds)
            let showsProgress = !quiet && isatty(STDERR_FILENO) != 0
            let file = rules
            if showsProgress {
                plan.progress = { inputs, games in
                    FileHandle.standardError.write(Data("\r\u{1B}[K\(file): \(inputs) inputs, \(games) games (Ctrl-C stops and reports)".utf8))
                }
            }
            StopRequest.install()
            plan.stop = { StopRequest.requested }
            defer { StopRequest.uninstall() }
            let report: FuzzReport
            let lines = coverage ? LuaCoverage() : nil
            lines?.include(file: rules)
            do {
                report = try LuaCoverage.$current.withValue(lines) { try Fuzzer.run(plan) }
            } catch {
                if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                throw ExitStatus.loadFailure(error)
            }
            if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            var saved: String?
            if let save, report.found != nil {
                saved = try write(report, into: save)
            }
            if json {
                var object = report.json
                if case .object(var fields) = object {
                    if let saved { fields["saved"] = .string(saved) }
                    if let lines { fields["coverage"] = CoverageReport.json(lines.report()) }
                    object = .object(fields)
                }
                print(SimReport.encode(object))
            } else {
                report.lines.forEach { print($0) }
                if let lines { CoverageReport.lines(lines.report()).forEach { print($0) } }
                if let saved { print("saved as a rule test: \(saved) (dicehost test \(saved) fails until the rules are fixed)") }
            }
            if report.found != nil { throw ExitStatus.failure }
        }

        /// Writes the shrunk case into `folder` (made if missing) as a new rule test.
        func write(_ report: FuzzReport, into folder: String) throws -> String {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                printError("dicehost: --save: cannot make the folder \(folder): \(error.localizedDescription)")
                throw ExitStatus.failure
            }
            let base = URL(fileURLWithPath: rules).deletingPathExtension().lastPathComponent
            let check = report.found?.shrunk.failure?.check.rawValue ?? "failure"
            var path = (folder as NSString).appendingPathComponent("fuzz-\(base)-\(check)-seed\(seed).txt")
            var number = 2
            while FileManager.default.fileExists(atPath: path) {
                path = (folder as NSString).appendingPathComponent("fuzz-\(base)-\(check)-seed\(seed)-\(number).txt")
                number += 1
            }
            guard let text = report.transcript(for: path) else { return path }
            do {
                try SafeFileWriter(protectedPaths: [rules]).write(text, to: path)
            } catch {
                printError("dicehost: --save: cannot write \(path): \(error)")
                throw ExitStatus.failure
            }
            return path
        }
    }
}

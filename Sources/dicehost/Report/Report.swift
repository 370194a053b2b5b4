import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The designer's report: fairness, length, skill, decisions, drama and health on one HTML page.",
            discussion: """
                One self-contained page (inline SVG charts, no scripts, readable on a phone) and,
                with --json, the same figures as JSON. Each figure says how it was obtained:
                exact (a fraction), solved to a tolerance, sampled (its 95% interval and the number
                of games) or counted. Each section chooses exact analysis where the game's positions
                fit its share of --budget and sampling where they do not, and says which; a section
                that cannot be computed says why in one line and the page is still made.
                --compare puts a second rule script beside the first, each figure with its
                difference; --sweep draws each seat's chance across a param's values.
                Exits 0 when the page is written, 1 when nothing could be reported or the page
                cannot be written (-o onto the rules, a folder that does not exist or is not
                writable), 2 on bad usage. See docs/report.md.
                """
        )

        @Argument(help: "The rule script, e.g. examples/rules/pig.lua.")
        var rules: String

        @OptionGroup var table: TableOptions

        @Option(help: "A second rule script (a variant), reported beside the first with each difference.")
        var compare: String?

        @Option(help: "Each seat's chance by a param's values, e.g. --sweep target=10..60:10 (a chart in Fairness).")
        var sweep: String?

        @Option(name: [.customShort("o"), .customLong("output")], help: "The HTML page to write (default: RULES' name with -report.html, here).")
        var output: String?

        @Option(help: "Also write the figures as JSON to this file.")
        var json: String?

        @Option(help: "About how many seconds the report may take per rule script (each section fits its share).")
        var budget = 60.0

        @Option(help: "The seed of the sampled figures (the same seed, the same figures).")
        var seed: UInt64 = 1

        @Flag(help: "Let -o and --json replace an existing file that is not a report this command wrote.")
        var force = false

        @Flag(help: "No progress lines on standard error.")
        var quiet = false

        func validate() throws {
            guard budget.isFinite, budget >= 1, budget <= 86_400 else { throw ValidationError("--budget must be from 1 to 86400 seconds, got \(budget)") }
            if compare != nil && sweep != nil { throw ValidationError("--compare and --sweep do not combine: a sweep is of one rule script") }
        }

        var outputPath: String {
            if let output { return output }
            return URL(fileURLWithPath: rules).deletingPathExtension().lastPathComponent + "-report.html"
        }

        func run() throws {
            let params: [(String, String)]
            let plan: Sweep?
            do {
                params = table.params
                plan = try sweep.map(Sweep.parse)
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            let protected = [rules] + (compare.map { [$0] } ?? [])
            let page = outputPath
            try checkWritable(page, marker: ReportPage.marker, option: "-o", protected: protected)
            if let json { try checkWritable(json, marker: "{", option: "--json", protected: protected + [page]) }
            let names = try playerNames(rules, params: params)
            StopRequest.install()
            defer { StopRequest.uninstall() }
            let first = build(rules, players: names, params: params, sweep: plan)
            var second: ReportDocument?
            if let compare {
                second = build(compare, players: try playerNames(compare, params: params), params: params, sweep: nil)
            }
            try write(ReportPage.html(first, comparedWith: second), to: page, marker: ReportPage.marker, option: "-o", protected: protected)
            if let json { try write(ReportJSON.json(first, comparedWith: second), to: json, marker: "{", option: "--json", protected: protected + [page]) }
            let documents = [first] + (second.map { [$0] } ?? [])
            print("\(page): \(summary(documents))")
            if let json { print("\(json): the same figures as JSON") }
            guard documents.contains(where: \.reportsAnything) else {
                printError("dicehost: report: nothing could be reported (every section says why on the page)")
                throw ExitStatus.failure
            }
        }

        /// The players named, or the smallest table; a script that does not load still gets
        /// its page (each section says why), so its names are only guessed at.
        func playerNames(_ file: String, params: [(String, String)]) throws -> [String] {
            let ruleSet: RuleSet
            do { ruleSet = try Game.check(rulesFile: file, params: params) } catch let error as RuleSet.OverrideError {
                throw ExitStatus.loadFailure(error)
            } catch {
                return table.players.map { $0.split(separator: ",").map(String.init) } ?? []
            }
            return try table.playerNames(for: ruleSet)
        }

        func build(_ file: String, players: [String], params: [(String, String)], sweep: Sweep?) -> ReportDocument {
            let quiet = self.quiet
            let builder = ReportBuilder(rulesFile: file, players: players, params: params, budget: budget, seed: seed) { line in
                if !quiet { printError("report \(file): \(line)") }
            }
            let document = builder.build(sweep: sweep)
            if !quiet {
                for section in document.sections {
                    let state = section.notComputed.map { "not computed: \($0)" } ?? section.method
                    printError("report \(file): \(section.title): \(state)")
                }
            }
            return document
        }

        func summary(_ documents: [ReportDocument]) -> String {
            documents.map { d in
                let made = d.sections.filter { $0.notComputed == nil }.count
                return String(format: "%@: %d of %d sections in %.1f s", d.rulesFile, made, d.sections.count, d.seconds)
            }.joined(separator: "; ")
        }

        func writer(_ path: String, marker: String, protected: [String]) -> SafeFileWriter {
            let isOurs = (try? String(contentsOfFile: path, encoding: .utf8))?.hasPrefix(marker) ?? true
            return SafeFileWriter(protectedPaths: protected, force: force || isOurs, forceHint: "--force")
        }

        /// Refuses a page that could not be written before any work is done.
        func checkWritable(_ path: String, marker: String, option: String, protected: [String]) throws {
            do {
                try writer(path, marker: marker, protected: protected).check(path)
                let folder = (path as NSString).deletingLastPathComponent
                if access(folder.isEmpty ? "." : folder, W_OK) != 0 {
                    throw GameOptions.UsageError(description: "cannot write \(path): the folder \(folder.isEmpty ? "." : folder) is not writable")
                }
            } catch {
                printError("dicehost: \(option): \(error)")
                throw ExitStatus.failure
            }
        }

        func write(_ text: String, to path: String, marker: String, option: String, protected: [String]) throws {
            do {
                try writer(path, marker: marker, protected: protected).write(text, to: path)
            } catch {
                printError("dicehost: \(option): \(error)")
                throw ExitStatus.failure
            }
        }
    }
}

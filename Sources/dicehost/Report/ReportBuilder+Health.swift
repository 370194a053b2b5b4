import DiceHost
import Foundation
import Lua

/// Health: the rule tests that play this script, the lines they never run, a short fuzz.
extension ReportBuilder {
    /// The transcripts under the `tests` folder beside the rule script that play it.
    func ruleTests() -> [String] {
        let folder = (rulesFile as NSString).deletingLastPathComponent
        let tests = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent("tests")
        let target = (rulesFile as NSString).standardizingPath.resolvingSymlinksInPathIfPossible
        let found = (FileManager.default.enumerator(atPath: tests)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".txt") }.sorted()
        return found.map { (tests as NSString).appendingPathComponent($0) }.filter { file in
            guard let transcript = try? Transcript(path: file) else { return false }
            return (transcript.rulesPath as NSString).standardizingPath.resolvingSymlinksInPathIfPossible == target
        }
    }

    func health() -> ReportSection {
        var section = ReportSection(.health)
        section.method = "counted: the rule tests beside the script, the lines they run, and a fuzz of random legal play"
        let coverage = LuaCoverage()
        coverage.include(file: rulesFile)
        let files = ruleTests()
        var passed = 0
        var failures: [String] = []
        LuaCoverage.$current.withValue(coverage) {
            for file in files {
                guard let transcript = try? Transcript(path: file) else { failures.append("\(file): does not parse"); continue }
                let actual = transcript.play()
                let expected = (try? String(contentsOfFile: file, encoding: .utf8)) ?? transcript.text
                if actual.setupError == nil, actual.checkFailure == nil, actual.text == expected || actual.text == transcript.text {
                    passed += 1
                } else {
                    failures.append(file)
                }
            }
        }
        if files.isEmpty {
            section.notes.append("no rule tests play this script (transcripts in a tests/ folder beside it)")
        } else {
            section.figures.append(ReportFigure(id: "tests.passed", label: "rule tests passed", value: Double(passed), unit: .count, method: .counted))
            section.figures.append(ReportFigure(id: "tests.failed", label: "rule tests failed", value: Double(failures.count), unit: .count, method: .counted))
            if !failures.isEmpty { section.notes.append("failing: " + failures.prefix(5).joined(separator: ", ") + (failures.count > 5 ? ", …" : "")) }
            for file in coverage.report() where (file.path as NSString).standardizingPath.hasSuffix((rulesFile as NSString).standardizingPath) || file.path == rulesFile {
                if let problem = file.problem { section.notes.append("coverage unknown: \(problem)"); continue }
                section.figures.append(ReportFigure(id: "coverage.never_run", label: "lines of the script the tests never run", value: Double(file.missed.count),
                                                    unit: .count, method: .counted))
                section.figures.append(ReportFigure(id: "coverage.lines", label: "lines of the script", value: Double(file.linesFound), unit: .count, method: .counted))
                if !file.missed.isEmpty { section.notes.append("never run by the tests: lines " + CoverageReport.ranges(file.missed)) }
            }
        }
        guard loadError == nil else {
            section.notes.append("no fuzz: the rule script does not load")
            return section
        }
        let seconds = min(max(budget * 0.08, 0.5), 20)
        var plan = Fuzzer.Plan(game: FuzzGame(rulesFile: rulesFile, players: players, params: params, moveLimit: 2_000),
                               seed: seed, inputs: nil, seconds: seconds, threads: 1, shrinkSeconds: min(seconds, 10))
        plan.stop = { StopRequest.requested }
        do {
            let report = try Fuzzer.run(plan)
            section.figures.append(ReportFigure(id: "fuzz.inputs", label: "fuzz: inputs tried", value: Double(report.inputs), unit: .count, method: .counted))
            section.figures.append(ReportFigure(id: "fuzz.found", label: "fuzz: failures found", value: report.found == nil ? 0 : 1, unit: .count, method: .counted))
            if let found = report.found {
                section.notes.append("fuzz found a failure, shrunk in \(found.shrinkRuns) runs: " + report.lines.prefix(6).joined(separator: " / "))
                section.notes.append("keep it as a rule test: dicehost fuzz \(rulesFile) --seed \(seed) --save \((rulesFile as NSString).deletingLastPathComponent)/tests")
            } else {
                section.notes.append(String(format: "fuzz: %d inputs in %d games over %.1f s, every check held (seed %llu)", report.inputs, report.cases, report.seconds, seed))
            }
        } catch {
            section.notes.append("no fuzz: \(error)")
        }
        return section
    }
}

extension String {
    /// The path with symbolic links resolved where they exist (the path as is otherwise).
    var resolvingSymlinksInPathIfPossible: String { (self as NSString).resolvingSymlinksInPath }
}

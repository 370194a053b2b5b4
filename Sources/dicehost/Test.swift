import ArgumentParser
import DiceHost
import Foundation
import Lua
import SystemPackage

extension DiceHostCommand {
    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run rule tests: transcripts of play sessions with the output expected.",
            discussion: """
                Each test is one text file (see docs/scripting.md, "Rule tests"). A failing test \
                shows where it went wrong: the input whose output first differs, the differing \
                lines with a few lines of context (- expected, + actual; a long diff is cut, never an \
                error line), and the --update command that accepts the new output. The last line \
                reads "N passed, M failed"; the exit status is 1 when any test fails. A test whose \
                rules do not load fails, also with --update.

                --update does not record output in which a rule hook failed (an error: line that \
                is not a refusal): the test fails, showing the error, unless --accept-errors is \
                given too.

                --coverage prints, before that line, how many lines of each rule script the tests ran and the lines that never ran ("coverage examples/rules/pig.lua: 39 of 43 lines run (90%); never run: 26-27, 56-57"); --lcov FILE also writes them as an lcov tracefile for an editor's coverage view (a temporary file renamed onto a regular file or a new path). The rule scripts count, the modules they require and the scripts beside them, not the runtime's own code; lines only, not branches (docs/scripting.md, "Rule tests").
                """
        )

        @Argument(help: "Test files or folders (searched for *.txt). Default: rules/tests, ./tests beside rule scripts, and every tests/ folder beside a rule script under examples/.")
        var paths: [String] = []

        @Option(name: .customShort("k"), help: "Run only the tests whose path contains this text (case-insensitive), e.g. -k doubles.")
        var filter: String?

        @Flag(help: "Rewrite each test's expectations with the actual output (not when a rule hook fails; see --accept-errors).")
        var update = false

        @Flag(help: "With --update: record the output even when a rule hook fails in it, as an expected error.")
        var acceptErrors = false

        @Flag(help: "Run the tests again whenever a test or a rule script it uses is saved (Ctrl-C leaves).")
        var watch = false

        @Flag(help: "Report the lines of each rule script the tests ran, and those they never ran.")
        var coverage = false

        @Option(help: ArgumentHelp("Write the coverage as an lcov tracefile to this file (implies --coverage), e.g. --lcov lcov.info.", valueName: "file"))
        var lcov: String?

        func validate() throws {
            if acceptErrors && !update { throw ValidationError("--accept-errors goes with --update (it lets --update record a rule error as expected output)") }
        }

        func run() throws {
            var files = try collect(paths.isEmpty ? Self.defaultFolders() : paths)
            if let filter, !filter.isEmpty { files = files.filter { $0.lowercased().contains(filter.lowercased()) } }
            let colour = Renderer.forStandardOutput().colour
            var failed = runAll(files, colour: colour)
            guard watch else {
                if failed > 0 { throw ExitStatus.failure }
                return
            }
            unblockInterrupts()  // Ctrl-C leaves
            var watched = Self.signatures(of: watchedFiles(files))
            print("watching \(files.count) test\(files.count == 1 ? "" : "s") and their rules (Ctrl-C leaves)")
            fflush(stdout)
            while true {
                usleep(100_000)
                let now = Self.signatures(of: watchedFiles(files))
                guard now != watched else { continue }
                watched = now
                print("")
                failed = runAll(files, colour: colour)
                fflush(stdout)
            }
        }

        /// Runs the tests, prints the summary line; returns how many failed.
        func runAll(_ files: [String], colour: Bool) -> Int {
            guard coverage || lcov != nil else { return runAll(files, colour: colour, coverage: nil) }
            let lines = LuaCoverage()
            return LuaCoverage.$current.withValue(lines) { runAll(files, colour: colour, coverage: lines) }
        }

        func runAll(_ files: [String], colour: Bool, coverage: LuaCoverage?) -> Int {
            var passed = 0, failed = 0
            var rulesFiles: [String] = []
            for file in files {
                do {
                    let transcript = try Transcript(path: file)
                    if let coverage, !rulesFiles.contains(transcript.rulesPathFromWorkingDirectory) {
                        Self.include(scriptsBeside: transcript.rulesPathFromWorkingDirectory, in: coverage)
                    }
                    rulesFiles.append(transcript.rulesPathFromWorkingDirectory)
                    let actual = transcript.play()
                    if let problem = actual.setupError {
                        // A setup failure is never an expectation, so --update leaves the file alone.
                        failed += 1
                        print(Self.paint("FAIL \(file): the game did not start: \(problem)", "1;31", colour))
                        continue
                    }
                    if let failure = actual.checkFailure {
                        // A failed `# check:` is never an expectation either: --update leaves it too.
                        failed += 1
                        print(Self.paint("FAIL \(file): check \(failure)", "1;31", colour))
                        continue
                    }
                    let expectedText = try String(contentsOfFile: file, encoding: .utf8)
                    if actual.text == expectedText || actual.text == transcript.text {
                        passed += 1
                        continue
                    }
                    if update, actual.sawRuleError, !acceptErrors {
                        // Following a failing test's hint must not turn a broken hook into expected output.
                        failed += 1
                        let line = Self.newRuleError(in: actual, comparedWith: transcript)
                        print(Self.paint("FAIL \(file): not updated: a rule hook failed, and --update would record that as expected output", "1;31", colour))
                        print("    \(line)")
                        print("    (fix the rules; if the test means to expect this error: dicehost test --update --accept-errors \(file))")
                        continue
                    }
                    if update {
                        try SafeFileWriter(protectedPaths: [transcript.rulesPath]).write(actual.text, to: file)
                        print("updated \(file)")
                        passed += 1
                        continue
                    }
                    failed += 1
                    let diff = lineDiff(expected: transcript.text, actual: actual.text)
                    print(Self.paint("FAIL \(file)" + Self.firstDifference(in: diff), "1;31", colour))
                    for line in trimmedDiff(diff) {
                        let painted = line.hasPrefix("-") ? Self.paint(line, "31", colour) : line.hasPrefix("+") ? Self.paint(line, "32", colour) : line
                        print("    " + painted)
                    }
                    print("    (if the new output is right: dicehost test --update \(file))")
                } catch {
                    failed += 1
                    print(Self.paint("FAIL \(error)", "1;31", colour))
                }
            }
            if let coverage {
                let report = coverage.report()
                CoverageReport.lines(report).forEach { print($0) }
                if let lcov {
                    do {
                        try CoverageReport.writeLcov(report, to: lcov, protecting: rulesFiles + files)
                        print("lcov tracefile: \(lcov)")
                    } catch {
                        failed += 1
                    }
                }
            }
            print("\(passed) passed, \(failed) failed")
            return failed
        }

        /// The first `error:` line of `actual` that `expected` does not have (the rule
        /// error --update would record), else its first `error:` line.
        static func newRuleError(in actual: Transcript, comparedWith expected: Transcript) -> String {
            let known = Set((expected.startExpected + expected.steps.flatMap(\.expected)).filter { $0.hasPrefix("error:") })
            let errors = (actual.startExpected + actual.steps.flatMap(\.expected)).filter { $0.hasPrefix("error:") }
            return errors.first { !known.contains($0) } ?? errors.first ?? "error: (a rule hook failed)"
        }

        /// The rule script and every script beside it (what `require` may load): one that
        /// no test runs is reported too, as never run.
        static func include(scriptsBeside rules: String, in coverage: LuaCoverage) {
            coverage.include(file: rules)
            let folder = FilePath(rules).removingLastComponent()
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder.string)) ?? [] where name.hasSuffix(".lua") {
                coverage.include(file: folder.appending(name).string)
            }
        }

        static func paint(_ text: String, _ code: String, _ colour: Bool) -> String {
            colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
        }

        /// Which input's output first differs: " (the output of '> roll' differs)".
        static func firstDifference(in diff: [String]) -> String {
            guard let first = diff.firstIndex(where: { !$0.hasPrefix(" ") }) else { return "" }
            guard let input = diff[..<first].last(where: { $0.dropFirst(2).hasPrefix("> ") }) else {
                return " (the output before the first input differs)"
            }
            return " (the output of '\(input.dropFirst(2))' differs)"
        }

        /// The lines that differ with `context` lines around each run of them; "…" marks
        /// lines left out. Past `maxLines` lines, each run of expected lines is cut to its
        /// first few and each run of actual lines to its first dozen, keeping every
        /// `error:` among the rest: a long block of expected lines must not push the
        /// actual output where the test went wrong (often an error) out of view.
        func trimmedDiff(_ diff: [String], context: Int = 3, maxLines: Int = 40) -> [String] {
            let changed = diff.indices.filter { !diff[$0].hasPrefix(" ") }
            var keep = Set<Int>()
            for i in changed { keep.formUnion(max(0, i - context)...min(diff.count - 1, i + context)) }
            var out: [String] = []
            var last = -1
            for i in keep.sorted() {
                if i > last + 1 { out.append("  …") }
                out.append(diff[i])
                last = i
            }
            if last >= 0, last < diff.count - 1 { out.append("  …") }
            guard out.count > maxLines else { return out }
            var compact: [String] = []
            var start = 0
            while start < out.count {
                let sign = out[start].prefix(1)
                var end = start
                while end < out.count, out[end].prefix(1) == sign { end += 1 }
                let run = out[start..<end]
                let shown = sign == "-" ? 6 : sign == "+" ? 12 : run.count
                if run.count <= shown + 1 {
                    compact += run
                } else {
                    let rest = run.dropFirst(shown)
                    let errors = sign == "+" ? rest.filter { $0.hasPrefix("+ error:") } : []
                    compact += run.prefix(shown) + errors
                    compact.append("  … (\(rest.count - errors.count) more \(sign == "-" ? "expected" : "actual") lines)")
                }
                start = end
            }
            guard compact.count > maxLines else { return compact }
            // Still long: the first lines, and any error after them.
            let errors = compact.dropFirst(maxLines).filter { $0.hasPrefix("+ error:") }
            let left = compact.count - maxLines - errors.count
            return Array(compact.prefix(maxLines)) + errors + ["  … (\(left) more lines of the diff)"]
        }

        /// rules/tests, and every tests/ folder beside a rule script under examples/.
        static func defaultFolders() -> [String] {
            var folders: [String] = []
            let manager = FileManager.default
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: "rules/tests", isDirectory: &isDirectory), isDirectory.boolValue { folders.append("rules/tests") }
            // tests/ beside rule scripts in the current folder (what `dicehost new` makes outside a project).
            if manager.fileExists(atPath: "tests", isDirectory: &isDirectory), isDirectory.boolValue,
               ((try? manager.contentsOfDirectory(atPath: ".")) ?? []).contains(where: { $0.hasSuffix(".lua") }) { folders.append("tests") }
            let found = (manager.enumerator(atPath: "examples")?.allObjects as? [String] ?? []).sorted()
            for relative in found where FilePath(relative).lastComponent?.string == "tests" {
                let folder = FilePath("examples").appending(relative).string
                let parent = FilePath(folder).removingLastComponent().string
                guard manager.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue,
                      let siblings = try? manager.contentsOfDirectory(atPath: parent), siblings.contains(where: { $0.hasSuffix(".lua") }) else { continue }
                folders.append(folder)
            }
            return folders
        }

        /// The test files and the rule scripts (with what they require) that they name.
        func watchedFiles(_ files: [String]) -> [String] {
            var paths = Set(files)
            for file in files {
                guard let transcript = try? Transcript(path: file) else { continue }
                let rules = transcript.rulesPath
                paths.insert(rules)
                // Scripts beside the rules (what `require` may load) count too.
                let folder = FilePath(rules).removingLastComponent()
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder.string)) ?? [] where name.hasSuffix(".lua") {
                    paths.insert(folder.appending(name).string)
                }
            }
            return paths.sorted()
        }

        static func signatures(of files: [String]) -> [String: String] {
            var out: [String: String] = [:]
            for file in files {
                let attributes = try? FileManager.default.attributesOfItem(atPath: file)
                let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate ?? 0
                let size = (attributes?[.size] as? NSNumber)?.uint64Value ?? 0
                let inode = (attributes?[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
                out[file] = "\(modified) \(size) \(inode)"
            }
            return out
        }

        func collect(_ paths: [String]) throws -> [String] {
            var files: [String] = []
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    printError("dicehost: no such test file or folder: \(path)")
                    throw ExitStatus.usage
                }
                if isDirectory.boolValue {
                    let found = (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
                        .filter { $0.hasSuffix(".txt") }.sorted().map { FilePath(path).appending($0).string }
                    files += found
                } else {
                    files.append(path)
                }
            }
            return files
        }
    }
}

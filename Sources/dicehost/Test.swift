import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run rule tests: transcripts of play sessions with the output expected.",
            discussion: """
                Each test is one text file (see docs/scripting.md, "Rule tests"). A failing test
                shows a diff (- expected, + actual). The last line reads "N passed, M failed";
                the exit status is 1 when any test fails.
                """
        )

        @Argument(help: "Test files or folders (searched for *.txt). Default: rules/tests.")
        var paths: [String] = []

        @Flag(help: "Rewrite each test's expectations with the actual output.")
        var update = false

        func run() throws {
            let files = try collect(paths.isEmpty ? ["rules/tests"] : paths)
            var passed = 0, failed = 0
            for file in files {
                do {
                    let transcript = try Transcript(path: file)
                    let actual = transcript.play()
                    let expectedText = try String(contentsOfFile: file, encoding: .utf8)
                    if actual.text == expectedText || actual.text == transcript.text {
                        passed += 1
                        continue
                    }
                    if update {
                        try SafeFileWriter(protectedPaths: [transcript.rulesPath]).write(actual.text, to: file)
                        print("updated \(file)")
                        passed += 1
                        continue
                    }
                    failed += 1
                    print("FAIL \(file)")
                    for line in lineDiff(expected: transcript.text, actual: actual.text) {
                        print("    " + line)
                    }
                } catch {
                    failed += 1
                    print("FAIL \(error)")
                }
            }
            print("\(passed) passed, \(failed) failed")
            if failed > 0 { throw ExitStatus.failure }
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
                        .filter { $0.hasSuffix(".txt") }.sorted().map { path + "/" + $0 }
                    files += found
                } else {
                    files.append(path)
                }
            }
            return files
        }
    }
}

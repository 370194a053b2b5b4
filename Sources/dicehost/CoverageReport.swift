import DiceHost
import Foundation
import Lua

/// What `test --coverage` and `fuzz --coverage` print: per rule script, how many of its
/// lines ran and the lines that never did; and the lcov tracefile `--lcov` writes.
enum CoverageReport {
    /// "coverage rules/pig.lua: 40 of 42 lines run (95%); never run: 17, 23-24".
    static func lines(_ files: [LuaCoverage.File]) -> [String] {
        files.map { file in
            let name = shownPath(file.path)
            if let problem = file.problem { return "coverage \(name): lines unknown (\(problem))" }
            let percent = file.linesFound == 0 ? 100 : file.linesHit * 100 / file.linesFound
            let missed = file.missed
            let tail = missed.isEmpty ? "" : "; never run: " + ranges(missed)
            return "coverage \(name): \(file.linesHit) of \(file.linesFound) lines run (\(percent)%)" + tail
        }
    }

    /// 3, 5, 6, 7, 9 → "3, 5-7, 9".
    static func ranges(_ lines: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < lines.count {
            var end = index
            while end + 1 < lines.count, lines[end + 1] == lines[end] + 1 { end += 1 }
            parts.append(end == index ? "\(lines[index])" : "\(lines[index])-\(lines[end])")
            index = end + 1
        }
        return parts.joined(separator: ", ")
    }

    /// For `--json`: per file its path, lines, lines run and the lines never run.
    static func json(_ files: [LuaCoverage.File]) -> JSONValue {
        .array(files.map { file in
            .object(["file": .string(shownPath(file.path)), "lines": .number(Double(file.linesFound)),
                     "run": .number(Double(file.linesHit)), "never_run": .array(file.missed.map { .number(Double($0)) })])
        })
    }

    /// Writes the lcov tracefile (temp file + rename, only onto a regular file or a new path).
    static func writeLcov(_ files: [LuaCoverage.File], to path: String, protecting: [String]) throws {
        do {
            try SafeFileWriter(protectedPaths: protecting, force: true).write(LuaCoverage.lcov(files), to: path)
        } catch {
            printError("dicehost: --lcov: cannot write \(path): \(error)")
            throw ExitStatus.failure
        }
    }

    /// Relative to the working folder when inside it.
    static func shownPath(_ path: String) -> String {
        let here = FileManager.default.currentDirectoryPath
        let prefix = here.hasSuffix("/") ? here : here + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}

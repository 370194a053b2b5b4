import Foundation
import Testing

/// The commands' `--json` is written by the package's one JSON writer (`JSONValue`): one
/// line, keys sorted, slashes as they are, and what `solve` says of how it stopped as a word.
@Suite struct CommandJSONTests {
    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The top-level keys in the order written.
    func keys(_ line: String) -> [String] {
        var keys: [String] = []
        var depth = 0, inString = false, escaped = false, start: String.Index?
        for i in line.indices {
            let c = line[i]
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" {
                    inString = false
                    if depth == 1, let s = start, line[line.index(after: i)...].hasPrefix(":") { keys.append(String(line[line.index(after: s)..<i])) }
                }
                continue
            }
            switch c {
            case "\"": inString = true; start = i
            case "{", "[": depth += 1
            case "}", "]": depth -= 1
            default: break
            }
        }
        return keys
    }

    @Test func solveOfAGameWithSecretsSaysWhyItStoppedAndWritesPathsAsTheyAre() throws {
        let result = try runDicehost(["solve", "examples/rules/liars-dice-openspiel.lua", "--set", "faces=2", "--json", "--quiet"])
        #expect(result.status == 0, "\(result)")
        let line = result.stdout.trimmingCharacters(in: .newlines)
        #expect(!line.contains("\n"))
        #expect(line.contains("\"rulesFile\":\"examples/rules/liars-dice-openspiel.lua\""), "\(line)")
        #expect(line.contains("\"stoppedBy\":\"exploitability\""), "\(line)")
        let written = keys(line)
        #expect(!written.isEmpty && written == written.sorted(), "\(written)")
        let o = try object(line)
        #expect(["average", "current"].contains(o["strategy"] as? String))
    }

    @Test func oddsJSONIsOneSortedLineThatParses() throws {
        let result = try runDicehost(["odds", "examples/rules/pig.lua", "--set", "target=6", "--json", "--quiet"])
        #expect(result.status == 0, "\(result)")
        let line = result.stdout.trimmingCharacters(in: .newlines)
        #expect(!line.contains("\n"))
        let written = keys(line)
        #expect(!written.isEmpty && written == written.sorted(), "\(written)")
        let o = try object(line)
        #expect((o["players"] as? [String]) == ["Ann", "Bob"])
    }

    @Test func theReportsFiguresAreIndentedJSONWithSortedKeys() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-json-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try runDicehost(["report", "examples/rules/pig.lua", "--set", "target=6", "--budget", "2", "--quiet",
                                      "-o", folder + "/pig.html", "--json", folder + "/pig.json"])
        #expect(result.status == 0, "\(result)")
        let text = try String(contentsOfFile: folder + "/pig.json", encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"format\" : "), "\(text.prefix(80))")
        #expect(text.hasSuffix("}\n"))
        let o = try object(text)
        #expect(o["report"] is [String: Any])
    }
}

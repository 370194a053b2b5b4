import Foundation
import Testing

/// Runs the built `dicehost` binary, as a user would, and returns its exit status and output.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func runDicehost(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> CommandResult {
    let process = Process()
    process.executableURL = packageRoot.appendingPathComponent(".build/debug/dicehost")
    process.arguments = arguments
    process.currentDirectoryURL = packageRoot
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let out = Pipe(), err = Pipe(), inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inPipe
    try process.run()
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try inPipe.fileHandleForWriting.close()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                         stderr: String(decoding: stderr, as: UTF8.self))
}

func writeTemporary(_ text: String, name: String = "script.lua") throws -> String {
    let dir = NSTemporaryDirectory() + "dicehost-cli-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let path = dir + "/" + name
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

@Suite struct CheckCommandTests {
    @Test func aScriptThatLoadsExitsZero() throws {
        let result = try runDicehost(["check", "rules/hello.lua"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("rules/hello.lua: ok"))
    }

    @Test func aScriptThatDoesNotParseExitsThreeNamingFileAndLine() throws {
        let path = try writeTemporary("local x = 1\nx = = 2\n")
        let result = try runDicehost(["check", path])
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("\(path):2: unexpected symbol near '='"), "\(result.stderr)")
    }

    @Test func aMissingFileExitsThree() throws {
        let result = try runDicehost(["check", "no/such/file.lua"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("cannot read no/such/file.lua"))
    }

    @Test func pairsOrderIsTheSameInSeparateProcesses() throws {
        // Debian's Lua seeds its string hash per process; the sandbox's pairs must not care.
        let names = (1...200).map { "key\($0 * 7919 % 1000)_\($0)" }
        let body = names.map { "t[\"\($0)\"] = true" }.joined(separator: "\n")
        let path = try writeTemporary("local t = {}\n\(body)\nlocal out = {}\nfor k in pairs(t) do out[#out + 1] = k end\nprint(table.concat(out, ','))\n")
        let first = try runDicehost(["check", path])
        let second = try runDicehost(["check", path])
        #expect(first.status == 0 && second.status == 0)
        #expect(first.stdout == second.stdout)
        #expect(first.stdout.hasPrefix(names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }).joined(separator: ",")))
    }
}

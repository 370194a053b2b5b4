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
    // Standard error is read on another thread while standard output is read here: a
    // command that writes more than a pipe holds to the one not being read would wait for
    // ever (progress lines every 50 ms did).
    let errorReader = PipeReader(err.fileHandleForReading)
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = errorReader.wait()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                         stderr: String(decoding: stderr, as: UTF8.self))
}

/// Reads a pipe to its end on a thread of its own.
final class PipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// What the pipe held, once it is closed (the semaphore orders the write before this read).
    func wait() -> Data {
        done.wait()
        return data
    }
}

func writeTemporary(_ text: String, name: String = "script.lua") throws -> String {
    let dir = NSTemporaryDirectory() + "dicehost-cli-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let path = dir + "/" + name
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

@Suite struct CheckCommandTests {
    @Test func aScriptThatLoadsExitsZeroAndDescribesIt() throws {
        let result = try runDicehost(["check", "examples/rules/pig.lua", "--set", "target=30"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "examples/rules/pig.lua: ok\nPig: 2-4 players, dice 1d6\nparams: hold=10, target=30\nactions: hold\nhooks: bot, roll, setup, turn\n"
                + "odds: analysable as far as checked (200 positions; there are more): try `dicehost odds`, or `dicehost sim`\n"
                + "bot games: 3 seeds played without an error (up to 500 moves each)\n")
    }

    @Test func checkSaysWhetherOddsCanAnalyseTheScript() throws {
        let race = try runDicehost(["check", "rules/race.lua", "--set", "target=6"])
        #expect(race.stdout.contains("odds: analysable by `dicehost odds` (53 positions under the bots)\n"), "\(race)")
        let snap = try runDicehost(["check", "rules/snap.lua"])
        #expect(snap.status == 0)
        #expect(snap.stdout.contains("odds: not analysable by `dicehost odds`: setup drew random numbers"), "\(snap)")
    }

    @Test func aBadParamOverrideIsBadUsage() throws {
        for command in ["check", "play", "sim"] {
            let result = try runDicehost([command, "examples/rules/pig.lua", "--set", "target=abc"], input: "")
            #expect(result.status == 2, "\(command): \(result)")
            #expect(result.stderr == "dicehost: --set: param 'target' must be an integer, got 'abc'\n", "\(command)")
        }
        let unknown = try runDicehost(["check", "examples/rules/pig.lua", "--set", "goal=3"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("dicehost: --set: unknown param 'goal' (this game has: "))
    }

    @Test func aMalformedSetIsBadUsage() throws {
        let result = try runDicehost(["check", "examples/rules/pig.lua", "--set", "target"])
        #expect(result.status == 2)
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
        #expect(result.stderr == "cannot read rule script no/such/file.lua: No such file or directory\n")
    }

    @Test func pairsOrderIsTheSameInSeparateProcesses() throws {
        // Debian's Lua seeds its string hash per process; the sandbox's pairs must not care.
        let names = (1...200).map { "key\($0 * 7919 % 1000)_\($0)" }
        let body = names.map { "t[\"\($0)\"] = true" }.joined(separator: "\n")
        let path = try writeTemporary("local t = {}\n\(body)\nlocal out = {}\nfor k in pairs(t) do out[#out + 1] = k end\nerror(table.concat(out, ','), 0)\n")
        let first = try runDicehost(["check", path])
        let second = try runDicehost(["check", path])
        #expect(first.status == 3 && second.status == 3)
        #expect(first.stderr == second.stderr)
        #expect(first.stderr.contains(names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }).joined(separator: ",")))
    }
}

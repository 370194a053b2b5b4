import Foundation
import Lua
import Testing

/// A state with a small budget so that runaway-script tests end quickly.
func makeState(budget: Int? = 5_000_000, memory: Int = 16 << 20) throws -> LuaState {
    try LuaState(limits: LuaLimits(memoryBytes: memory, instructionBudget: budget))
}

/// Runs a chunk named "test.lua" and returns the error it must raise.
func expectError(_ lua: LuaState, _ source: String, sourceLocation: SourceLocation = #_sourceLocation) -> LuaError? {
    do {
        let results = try lua.run(source, chunkName: "test.lua")
        Issue.record("expected an error, got \(results)", sourceLocation: sourceLocation)
        return nil
    } catch let error as LuaError {
        return error
    } catch {
        Issue.record("unexpected error type \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The state still runs ordinary code after a failure.
func expectUsable(_ lua: LuaState, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let results = try lua.run("local t = {} for i = 1, 100 do t[i] = i * 2 end return #t, t[50]", chunkName: "after.lua")
    #expect(results == [.integer(100), .integer(100)], sourceLocation: sourceLocation)
}

/// What plain `lua5.4` answers for `body` (a chunk that returns a value, written with
/// `tostring`), or nil where this machine has no `lua5.4`: conformance tests compare the
/// sandbox with it.
func plainLuaAnswer(_ body: String) throws -> String? {
    guard let lua = ["/usr/bin/lua5.4", "/usr/local/bin/lua5.4"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: lua)
    process.arguments = ["-e", "io.write(tostring((function() \(body) end)()))"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

import Lua
import Testing

/// The numbering of an analysis's positions (`position_index.c`): keys kept in C outside
/// Lua's heap, so neither the collector nor the script's memory cap sees them.
@Suite struct PositionIndexTests {
    /// Runs `source` with the index's functions as `...` (one index per call).
    func run(_ lua: LuaState, _ source: String) throws -> [LuaValue] {
        let chunk = try lua.load("local new_position_index = ...\nlocal ix = new_position_index()\n" + source, chunkName: "host.lua")
        return try lua.call(.function(chunk), [lua.positionIndexFactory()])
    }

    @Test func equalBytesHaveOneNumberAndNewKeysTheNextOne() throws {
        let lua = try makeState(budget: nil)
        // 5,000 keys grow the slots (from 1,024) and the bytes (from 64 KiB) several times;
        // keys differ in a zero byte, in length only, and one is empty.
        let results = try run(lua, """
            local keys = {"", "\\0", "\\0\\0", "a\\0b", "a\\0c", "a", "aa"}
            for i = 1, 5000 do keys[#keys + 1] = string.rep("k", i % 97) .. "|" .. i end
            for i = 1, #keys do
              local n, new = ix.number(keys[i])
              if n ~= i or new ~= true then return "numbered " .. tostring(n) .. " for key " .. i end
            end
            for i = #keys, 1, -1 do
              local n, new = ix.number(keys[i] .. "")
              if n ~= i or new ~= false then return "found " .. tostring(n) .. " for key " .. i end
              if ix.key(i) ~= keys[i] then return "key " .. i .. " came back as " .. ix.key(i) end
            end
            return ix.count(), ix.bytes() > 0
            """)
        #expect(results == [.integer(5007), .boolean(true)])
    }

    @Test func keysAreOutsideTheLuaHeapAndTheScriptsCap() throws {
        let lua = try makeState(budget: nil, memory: 2 << 20)
        let before = lua.memoryUsed
        // 6,000 keys of a kilobyte: three times the 2 MiB cap.
        let results = try run(lua, """
            for i = 1, 6000 do ix.number(string.rep("k", 1000) .. i) end
            return ix.count(), ix.bytes()
            """)
        lua.collectGarbage()
        #expect(results.first == .integer(6000))
        if case .integer(let bytes)? = results.last { #expect(bytes >= 6000 * 1000, "\(bytes)") } else { Issue.record("\(results)") }
        #expect(lua.memoryUsed < before + (256 << 10), "heap \(lua.memoryUsed), before \(before)")
        // The script still has its whole cap, and no more.
        #expect(try lua.run("return #string.rep('x', 256 * 1024)", chunkName: "script.lua") == [.integer(256 * 1024)])
        let error = expectError(lua, "local t = {} for i = 1, 128 do t[i] = string.rep('y', 32 * 1024) .. i end")
        #expect(error?.kind == .memory, "\(String(describing: error))")
        try expectUsable(lua)
    }

    @Test func aNumberNotGivenOrNotAStringIsAClearError() throws {
        let lua = try makeState(budget: nil)
        for (source, expected) in [("ix.number('a') return ix.key(2)", "no position numbered 2 (1 numbered)"),
                                   ("return ix.key(0)", "no position numbered 0 (0 numbered)"),
                                   ("return ix.number({})", "string expected, got table")] {
            do {
                _ = try run(lua, source)
                Issue.record("no error for \(source)")
            } catch {
                #expect("\(error)".contains(expected), "\(source): \(error)")
            }
        }
        try expectUsable(lua)
    }
}

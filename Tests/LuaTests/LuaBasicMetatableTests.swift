import Lua
import Testing

/// Issue 35, item 2: the string metatable that getmetatable('') answers is read-only
/// for good, while a script loads as well as after: a write that seemed to succeed
/// would change nothing (strings index the real metatable, out of the script's reach).
@Suite struct LuaBasicMetatableTests {
    static let frozenError = "cannot set '__index' in the string metatable: it is read-only once the script has loaded"

    /// The writes a script could try on getmetatable(''), each with what it must raise.
    static let writes: [(source: String, error: String)] = [
        ("getmetatable('').__index = {upper = function() return 'pwned' end}", frozenError),
        ("local mt = getmetatable('') mt.__index = mt", frozenError),
        ("rawset(getmetatable(''), '__index', {})", frozenError),
        ("getmetatable('').__call = print", "cannot set '__call' in the string metatable"),
        ("rawset(getmetatable(''), 1, true)", "cannot change the string metatable: it is read-only once the script has loaded"),
        ("setmetatable(getmetatable(''), {})", "cannot change the metatable of"),
        ("setmetatable(getmetatable(''), nil)", "cannot change the metatable of"),
    ]

    @Test(arguments: 0..<writes.count) func aWriteToTheStringMetatableRaisesWhileTheScriptLoads(_ index: Int) throws {
        let (source, expected) = Self.writes[index]
        let lua = try makeState()
        let error = lua.whileLoading { expectError(lua, source) }
        #expect(error?.message.contains(expected) == true, "\(source): \(String(describing: error))")
        // Nothing changed: string methods are still the sandbox's, the metatable reads as before.
        let after = try lua.run("local mt = getmetatable('') return ('abc'):upper(), mt.__index == string, mt.__call, rawget(mt, 1)", chunkName: "t.lua")
        #expect(after == [.string("ABC"), .boolean(true), .nil, .nil], "\(source)")
    }

    @Test(arguments: 0..<writes.count) func aWriteToTheStringMetatableRaisesOnceLoaded(_ index: Int) throws {
        let (source, expected) = Self.writes[index]
        let lua = try makeState()
        let error = expectError(lua, source)
        #expect(error?.message.contains(expected) == true, "\(source): \(String(describing: error))")
        #expect(try lua.run("return ('abc'):upper(), ('x'):rep(3)", chunkName: "t.lua") == [.string("ABC"), .string("xxx")])
    }

    /// The error is catchable, as any other error of a script, and the read still works.
    @Test func theRefusalIsACatchableError() throws {
        let lua = try makeState()
        let results = try lua.whileLoading {
            try lua.run("""
                local ok, e = pcall(function() getmetatable('').__index = {} end)
                return ok, e:find('read-only', 1, true) ~= nil, getmetatable('').__index == string, ('a'):rep(2)
                """, chunkName: "t.lua")
        }
        #expect(results == [.boolean(false), .boolean(true), .boolean(true), .string("aa")])
    }

    /// Other frozen tables still take writes while a script loads (its globals, its rule table).
    @Test func frozenTablesStillTakeWritesWhileLoading() throws {
        let lua = try makeState()
        let table = try #require(try lua.run("return {}", chunkName: "t.lua").first?.tableRef)
        lua.freeze(table, as: "the rule table")
        lua.set(lua.globals, "rules", .table(table))
        let results = try lua.whileLoading { try lua.run("rules.x = 1 rawset(rules, 'y', 2) return rules.x, rules.y", chunkName: "t.lua") }
        #expect(results == [.integer(1), .integer(2)])
    }
}

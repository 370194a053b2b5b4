import Lua
import Testing

@Suite struct LuaErrorTests {
    @Test func syntaxErrorsNameFileAndLine() throws {
        let lua = try makeState()
        #expect(throws: LuaError(kind: .syntax, message: "syntax error near 'end'", file: "rules/race.lua", line: 3)) {
            try lua.load("local x = 1\nlocal y\nx end", chunkName: "rules/race.lua")
        }
        #expect(throws: LuaError(kind: .syntax, message: "'end' expected (to close 'function' at line 1) near <eof>", file: "a.lua", line: 2)) {
            try lua.load("function f()\n", chunkName: "a.lua")
        }
    }

    @Test func runtimeErrorsNameFileLineAndCarryATraceback() throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, "local t = nil\n\nreturn t.field"))
        #expect(error.kind == .runtime)
        #expect(error.file == "test.lua")
        #expect(error.line == 3)
        #expect(error.message == "attempt to index a nil value (local 't')")
        #expect(error.traceback?.hasPrefix("stack traceback:") == true)
        #expect(error.description == "test.lua:3: attempt to index a nil value (local 't')")
    }

    @Test func tableErrorObjectsGiveAReadableMessage() throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, "\nerror({code = 1})"))
        #expect(error.message == "(error object is a table value)")
        #expect(error.file == "test.lua" && error.line == 2)
    }

    @Test func errorObjectsWithTostringUseIt() throws {
        let lua = try makeState()
        let error = try #require(expectError(lua, "error(setmetatable({}, {__tostring = function() return 'custom failure' end}))"))
        #expect(error.message == "custom failure")
    }

    @Test func hostileTostringStillGivesAMessage() throws {
        let lua = try makeState()
        for body in ["error('nested')", "while true do end", "return {}"] {
            let error = try #require(expectError(lua, "error(setmetatable({}, {__tostring = function() \(body) end}))"))
            #expect(error.message == "(error object is a table value whose __tostring failed)")
            try expectUsable(lua)
        }
    }

    @Test func nilErrorObjectsAreDescribed() throws {
        let lua = try makeState()
        #expect(expectError(lua, "error()")?.message == "(error object is a nil value)")
    }

    @Test func errorsInsideMessageHandlersAreTheirOwnKind() throws {
        let lua = try makeState()
        // Inside the script's own xpcall the handler fails; Lua reports it as a value.
        let results = try lua.run("return xpcall(error, function() error('again') end, 'first')", chunkName: "t.lua")
        #expect(results.first == .boolean(false))
        try expectUsable(lua)
    }
}

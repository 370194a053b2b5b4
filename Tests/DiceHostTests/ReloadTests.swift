import DiceHost
import Foundation
import Lua
import Testing

@Suite struct ReloadTests {
    func writeRules(_ body: String, to path: String) throws {
        try body.write(toFile: path, atomically: true, encoding: .utf8)
    }

    let version1 = """
        local r = rules { name = "Counter", players = 1 }
        function r.setup(g) g.state.count = 0 end
        function r.roll(g, p, roll) g.state.count = g.state.count + 1 end
        return r
        """
    let version2 = """
        local r = rules { name = "Counter v2", players = 1 }
        function r.setup(g) g.state.count = 0 end
        function r.roll(g, p, roll) g.state.count = g.state.count + 10 end
        function r.migrate(g) g.state.migrated = true end
        return r
        """

    @Test func reloadKeepsTheStateAndAppliesNewRules() throws {
        let path = NSTemporaryDirectoryPath() + "/counter.lua"
        try writeRules(version1, to: path)
        let game = try Game(rulesFile: path, players: ["Ann"])
        try game.roll(values: [1])
        try writeRules(version2, to: path)
        try game.reload()
        #expect(game.rules.name == "Counter v2")
        #expect(game.lua.get(game.state.tableRef!, "migrated") == .boolean(true))
        try game.roll(values: [1])
        #expect(game.lua.get(game.state.tableRef!, "count") == .integer(11))
        #expect(game.events.last?.description == "roll Ann ⚀")
    }

    @Test func aBrokenReloadKeepsTheOldRulesRunning() throws {
        let path = NSTemporaryDirectoryPath() + "/counter.lua"
        try writeRules(version1, to: path)
        let game = try Game(rulesFile: path, players: ["Ann"])
        try writeRules("local r = rules { name = 'Broken', players = 1 }\nfunction r.roll(g, p, roll)\n", to: path)
        expectGameError("\(path):3: 'end' expected (to close 'function' at line 2) near <eof>") { try game.reload() }
        try writeRules("local r = rules { name = 'NoRoll', players = 1 }\nreturn r\n", to: path)
        expectGameError("\(path):1: rules 'NoRoll' define no roll hook: add function <rules>.roll(g, p, r)") { try game.reload() }
        #expect(game.rules.name == "Counter")
        try game.roll(values: [1])
        #expect(game.lua.get(game.state.tableRef!, "count") == .integer(1))
        try writeRules(version2, to: path)
        try game.reload()
        try game.roll(values: [1])
        #expect(game.lua.get(game.state.tableRef!, "count") == .integer(11))
    }
}

import DiceHost
import Testing

@Suite struct RuleSetTests {
    @Test func declarationIsRead() throws {
        let game = try makeGame(minimalRules)
        #expect(game.rules.name == "Mini")
        #expect(game.rules.minPlayers == 1 && game.rules.maxPlayers == 4)
        #expect(game.rules.dice == (try DiceNotation("1d6")))
        #expect(game.rules.param("target") == .integer(10))
        #expect(game.rules.actions == ["add", "boom"])
        #expect(game.rules.hooks == ["roll", "setup"])
    }

    @Test func missingRollHookNamesTheDeclarationLine() {
        expectGameError("test.lua:2: rules 'X' define no roll hook: add function <rules>.roll(g, p, r)") {
            _ = try makeGame("-- no roll\nlocal r = rules { name = 'X' }\nreturn r")
        }
    }

    @Test func playersOutOfOrderAreRefused() {
        expectGameError("test.lua:1: bad rules declaration: players must be {min, max} with 1 <= min <= max <= 16, got {3, 2}") {
            _ = try makeGame("local r = rules { name = 'X', players = {3, 2} }\nfunction r.roll() end\nreturn r")
        }
    }

    @Test(arguments: ["secret_rolls", "keep_dice", "unordered_dice"])
    func aDeclarationFlagIsTrueOrFalse(field: String) throws {
        expectGameError("test.lua:1: \(field) must be true or false, got string") {
            _ = try makeGame("local r = rules { name = 'X', \(field) = 'yes' }\nfunction r.roll() end\nreturn r")
        }
        let game = try makeGame("local r = rules { name = 'X', players = {1, 2}, \(field) = true }\nfunction r.roll() end\nreturn r")
        #expect([game.rules.secretRolls, game.rules.keepsDice, game.rules.unorderedDice].filter { $0 }.count == 1)
    }

    @Test func badDiceNotationIsRefused() {
        expectGameError("test.lua:1: bad rules declaration: bad dice notation '2x6': missing 'd' between count and sides (expected e.g. 2d6, 4d6kh3, 1d6!+2)") {
            _ = try makeGame("local r = rules { name = 'X', dice = '2x6' }\nfunction r.roll() end\nreturn r")
        }
    }

    @Test func paramOverridesAreTyped() throws {
        expectGameError("param 'target' must be an integer, got 'abc'") { _ = try makeGame(minimalRules, params: [("target", "abc")]) }
        expectGameError("unknown param 'goal' (this game has: target, dice)") { _ = try makeGame(minimalRules, params: [("goal", "3")]) }
        let game = try makeGame(minimalRules, params: [("target", "30"), ("dice", "2d6")])
        #expect(game.rules.param("target") == .integer(30))
        #expect(game.rules.dice.count == 2)
    }

    @Test func wrongNumberOfPlayersIsRefused() {
        expectGameError("Mini needs 1 to 4 players, got 5") { _ = try makeGame(minimalRules, players: ["a", "b", "c", "d", "e"]) }
    }

    @Test func scriptMustReturnItsRules() {
        expectGameError("test.lua: the script must return the table made by rules{...} (it returned table)") {
            _ = try makeGame("rules { name = 'X' }\nreturn {}")
        }
    }

    @Test func variantsExtendABaseInAFewLines() throws {
        let dir = NSTemporaryDirectoryPath()
        try minimalRules.write(toFile: dir + "/mini.lua", atomically: true, encoding: .utf8)
        try """
            local base = require "mini"
            local v = rules.extend(base, { name = "Mini Plus", params = { target = 3, bonus = 1 } })
            function v.roll(g, p, r) r.total = r.total + g.params.bonus; return base.roll(g, p, r) end
            return v
            """.write(toFile: dir + "/plus.lua", atomically: true, encoding: .utf8)
        let game = try Game(rulesFile: dir + "/plus.lua", players: ["Ann"])
        #expect(game.rules.name == "Mini Plus")
        #expect(game.rules.param("target") == .integer(3))
        #expect(game.rules.actions == ["add", "boom"])
        try game.roll(values: [2])
        #expect(game.outcome == .win("Ann"))
    }
}

import Foundation

func NSTemporaryDirectoryPath() -> String {
    let path = NSTemporaryDirectory() + "dicehost-game-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

import DiceHost
import Foundation
import Lua
import Testing

/// `undo`, `save` and `load` in a play session.
@Suite struct SessionUndoSaveTests {
    func crapsSession(seed: UInt64 = 3) throws -> GameSession {
        GameSession(game: try Game(rulesFile: "rules/craps.lua", players: ["Ann", "Bob"], seed: seed))
    }

    func balance(_ session: GameSession, _ name: String) -> LuaValue {
        session.game.lua.get(session.game.player(name).tableRef!, "balance")
    }

    @Test func undoTakesBackTheLastInputWholeAndOnlyThat() throws {
        let session = try crapsSession()
        _ = session.run("ante 25")
        let afterAnte = session.game.events.map(\.description)
        let state = session.describeState()
        _ = session.run("roll 3 4")          // Ann wins $25 and the turn passes
        #expect(balance(session, "Ann") == .integer(225))
        #expect(session.game.currentPlayer == "Bob")
        #expect(session.run("undo").lines == ["undone: roll 3 4"])
        #expect(balance(session, "Ann") == .integer(200))
        #expect(session.game.currentPlayer == "Ann")
        #expect(session.game.events.map(\.description) == afterAnte)
        #expect(session.describeState() == state)
        #expect(session.game.metrics.isEmpty)
        // The generator is back too: rolling again gives what the first roll would have.
        let fresh = try crapsSession()
        _ = fresh.run("ante 25")
        #expect(session.run("roll").lines == fresh.run("roll").lines)
    }

    @Test func commandsThatChangeNothingAreSkippedAndTheStackEmpties() throws {
        let session = try crapsSession()
        _ = session.run("roll 2 2")           // the point is 4
        _ = session.run("state")
        _ = session.run("fly")                // an error: not undoable
        #expect(session.run("undo").lines == ["undone: roll 2 2"])
        #expect(session.game.lua.get(session.game.state.tableRef!, "point") == .string("off"))
        #expect(session.run("undo").lines == ["error: nothing to undo"])
        #expect(session.steps.isEmpty)
    }

    @Test func undoTakesBackARestartAndATick() throws {
        let session = GameSession(game: try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 5))
        _ = session.run("roll 6")
        _ = session.run("tick 31s")            // Bob's turn times out
        #expect(session.game.currentPlayer == "Ann")
        _ = session.run("undo")
        #expect(session.game.now == 0 && session.game.currentPlayer == "Bob")
        _ = session.run("restart")
        #expect(session.game.lua.get(session.game.player("Ann").tableRef!, "score") == .integer(0))
        _ = session.run("undo")
        #expect(session.game.lua.get(session.game.player("Ann").tableRef!, "score") == .integer(6))
        _ = session.run("roll 2")              // the restored game plays on
        #expect(session.game.lua.get(session.game.player("Bob").tableRef!, "score") == .integer(2))
    }

    @Test func aSavedGameLoadsToTheSameStateAndIsARuleTest() throws {
        let session = try crapsSession(seed: 8)
        for line in ["ante 20", "roll", "roll", "roll 5 5", "as Bob ante 10", "state"] { _ = session.run(line) }
        let dir = NSTemporaryDirectory() + "dicehost-save-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let file = dir + "/game.txt"
        #expect(session.run("save \(file)").lines == ["saved 4 commands to \(file)"])  // not `state`, nor the refused ante

        let other = GameSession(game: try Game(rulesFile: "rules/race.lua", players: ["Cy", "Dee"], seed: 1))
        let reply = other.run("load \(file)").lines
        #expect(reply == ["loaded \(file): Craps, Ann, Bob, 4 commands replayed"])
        #expect(other.describeState() == session.describeState())
        #expect(other.game.events.map(\.description) == session.game.events.map(\.description))
        #expect(other.run("roll").lines == session.run("roll").lines)

        let transcript = try Transcript(path: file)
        #expect(transcript.play().text == transcript.text)
    }

    @Test func loadKeepsTheGameWhenTheFileIsBad() throws {
        let session = try crapsSession()
        _ = session.run("roll 2 2")
        let reply = session.run("load /nonexistent/game.txt").lines
        #expect(reply.count == 1 && reply[0].hasPrefix("error: "))
        #expect(session.game.lua.get(session.game.state.tableRef!, "point") == .integer(4))
        #expect(session.run("save").lines == ["error: usage: save FILE [--force]"])
    }

    @Test func tabCompletionOffersCommandsActionsAndPlayers() throws {
        let words = try crapsSession().completionWords
        for word in ["roll", "as", "tick", "undo", "save", "load", "reload", "quit", "ante", "reset", "Ann", "Bob", "tilt"] {
            #expect(words.contains(word), "\(word)")
        }
        #expect(!words.contains("ACTION") && Set(words).count == words.count)
    }

    @Test func aFailedReloadSaysTheOldRulesStillRun() throws {
        let path = try temporaryRules("local r = rules { name = 'One', players = 1 }\nfunction r.roll(g, p, roll) g:say('one') end\nreturn r\n")
        let session = GameSession(game: try Game(rulesFile: path, players: ["Ann"]))
        try "local r = rules { name = 'Two', players = 1 }\nreturn r +\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(session.run("reload").lines == ["error: reload failed, the old rules still run: \(path):3: unexpected symbol near <eof>"])
        #expect(session.sawRuleError)
        #expect(session.run("roll 2").lines.contains("say one"))
    }

    @Test func helpExplainsOneCommand() throws {
        let session = try crapsSession()
        #expect(session.run("help undo").lines == ["undo [N]  take back the last roll, action, tick or restart (or the last N)"])
        #expect(session.run("help ante").lines == ["ante [ARGS...]  an action of Craps, as the current player (or 'as NAME ante')"])
        #expect(session.run("help fly").lines == ["error: no command 'fly' (try 'help')"])
    }

    @Test func crapsShowsThePointAndBalancesInItsStatusLine() throws {
        let session = try crapsSession()
        #expect(session.game.statusLine() == "point off · Ann $200 · Bob $200")
        _ = session.run("roll 3 3")
        #expect(session.game.statusLine() == "point 6 · Ann $200 · Bob $200")
        let race = try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"])
        #expect(race.statusLine() == nil)
    }
}

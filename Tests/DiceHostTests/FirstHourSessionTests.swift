@testable import DiceHost
import Lua
import Testing

/// What a newcomer meets in the REPL in the first hour: typos get a suggestion, `undo`
/// says how far it went, `state` shows the game, not the host's timer handles.
@Suite struct FirstHourSessionTests {
    func race() throws -> GameSession {
        GameSession(game: try Game(rulesFile: "rules/race.lua", players: ["Ann", "Bob"], seed: 1))
    }

    @Test func aMistypedCommandSuggestsTheCommandMeant() throws {
        let session = try race()
        #expect(session.run("rol").lines == ["error: unknown command 'rol': did you mean 'roll'? (try 'help')"])
        #expect(session.run("undoo").lines == ["error: unknown command 'undoo': did you mean 'undo'? (try 'help')"])
        #expect(session.run("help stat").lines == ["error: no command 'stat': did you mean 'state'? (try 'help')"])
        // Nothing close: no guess.
        #expect(session.run("fly").lines == ["error: unknown command 'fly' (try 'help')"])
    }

    @Test func aMistypedActionSuggestsTheRulesAction() throws {
        let session = GameSession(game: try Game(rulesFile: "rules/snap.lua", players: ["Ann", "Bob"], seed: 1))
        #expect(session.run("snapp").lines == ["error: unknown command 'snapp': did you mean 'snap'? (try 'help')"])
    }

    @Test func undoPastTheHistorySaysHowFarItWent() throws {
        let session = try race()
        for _ in 0..<3 { _ = session.run("roll") }
        let lines = session.run("undo 5").lines
        #expect(lines == ["undone: roll", "undone: roll", "undone: roll", "undid 3 of 5: nothing earlier to undo"])
        #expect(session.run("undo").lines == ["error: nothing to undo"])
        // Undoing exactly what there is says nothing more.
        _ = session.run("roll")
        #expect(session.run("undo 1").lines == ["undone: roll"])
    }

    @Test func stateLeavesOutTimerHandles() throws {
        let session = try race()
        // Race keeps its pulse and turn timeout in g.state: {pulse={id=1}, timeout={id=2}} before.
        #expect(session.game.lua.get(session.game.state.tableRef!, "pulse").tableRef != nil)
        let lines = session.run("state").lines
        #expect(lines.first == "state: {}", "\(lines)")
        #expect(!lines.joined().contains("id="), "\(lines)")
    }

    @Test func stateStillShowsATableThatOnlyLooksLikeATimer() throws {
        let game = try makeGame("""
            local r = rules { name = "Ids", players = {1, 1}, dice = "1d6" }
            function r.setup(g) g.state.ticket = {id = 7}; g.state.t = timer.after(1000, function() end) end
            function r.roll(g, p, roll) end
            return r
            """, players: ["Ann"])
        let lines = GameSession(game: game).run("state").lines
        #expect(lines.first == "state: {ticket={id=7}}", "\(lines)")
    }

    @Test func nearestWordNeedsACloseCandidate() {
        #expect(NearestWord.to("rol", among: ["roll", "redo"]) == "roll")
        #expect(NearestWord.to("plya", among: ["play", "test"]) == "play")
        #expect(NearestWord.to("roll", among: ["roll"]) == nil)
        #expect(NearestWord.to("x", among: ["as", "led"]) == nil)
        #expect(NearestWord.to("fuzzz", among: ["play", "test"]) == nil)
    }
}

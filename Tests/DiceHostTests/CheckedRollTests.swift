@testable import DiceHost
import Foundation
import Testing

/// The analyses play every outcome of a roll from one position; the second and later
/// outcomes reuse what the first checked (`Game.CheckedRoll`, `Game.CheckedKeep`). A roll
/// made that way must leave the game exactly as the full roll does.
@Suite struct CheckedRollTests {
    static let rules = """
        local t = rules { name = "Checked", players = 2, dice = "2d6", keep_dice = true }
        function t.setup(g) g.state.log = "" end
        function t.roll(g, p, r)
          local previous = r.previous and r.previous.total or 0
          g.state.log = g.state.log .. p.name .. ":" .. r.total .. "/" .. previous .. (r.kept and ("k" .. #r.kept) or "") .. ";"
          g:say("%s rolled %d", p.name, r.total)
          if r.total >= 12 then g:win(p) elseif r.total % 2 == 0 then g:next_turn() end
        end
        return t
        """

    /// What a roll can change: the rules' state, the current seat, the host's counts,
    /// the log, and the outcome.
    func summary(_ game: Game) -> [String] {
        [game.lua.get(game.g, path: "state", "log").description, game.lua.get(game.g, path: "current", "name").description,
         "rolls \(game.host.rolls) turns \(game.host.turns) over \(game.isOver)"] + game.eventLog.map(\.description)
    }

    @Test(arguments: [[5, 2], [3, 3], [6, 6]])
    func aRollCheckedFromTheSamePositionPlaysAsTheFullRoll(values: [Int]) throws {
        var checked: Game.CheckedRoll?
        try makeGame(Self.rules).roll(values: [4, 3], checked: &checked)
        #expect(checked?.seat == 1)
        let full = try makeGame(Self.rules)
        try full.roll(values: values)
        let reused = try makeGame(Self.rules)
        try reused.roll(values: values, checked: &checked)
        #expect(summary(reused) == summary(full))
    }

    @Test func aRollByANamedPlayerIsNeverReused() throws {
        var checked: Game.CheckedRoll?
        try makeGame(Self.rules).roll(values: [4, 3], by: "Ann", checked: &checked)
        #expect(checked == nil)
    }

    @Test(arguments: [[1], [2], [1, 2], []])
    func aKeepCheckedFromTheSamePositionPlaysAsTheFullKeep(keep: [Int]) throws {
        let rolled = Array([6, 5].prefix(2 - keep.count))
        var checked: Game.CheckedKeep?
        let first = try makeGame(Self.rules)
        try first.roll(values: [4, 3])
        try first.roll(keeping: keep, rolled: Array([1, 1].prefix(2 - keep.count)), checked: &checked)
        #expect(checked?.values == [4, 3])
        let full = try makeGame(Self.rules)
        try full.roll(values: [4, 3])
        try full.roll(keeping: keep, rolled: rolled)
        let reused = try makeGame(Self.rules)
        try reused.roll(values: [4, 3])
        try reused.roll(keeping: keep, rolled: rolled, checked: &checked)
        #expect(summary(reused) == summary(full))
    }

    /// Checked once per move: a keep of other dice is checked anew, not reused.
    @Test func aKeepOfOtherDiceIsCheckedAgain() throws {
        var checked: Game.CheckedKeep?
        let first = try makeGame(Self.rules)
        try first.roll(values: [4, 3])
        try first.roll(keeping: [1], rolled: [2], checked: &checked)
        let game = try makeGame(Self.rules)
        try game.roll(values: [4, 3])
        expectGameError("roll keep: positions are 1 to 2 for 2d6, got 3") {
            try game.roll(keeping: [3], rolled: [2], checked: &checked)
        }
    }
}

@testable import DiceHost
import Foundation
import Testing

/// `solve` under `unordered_dice`: keeps of one position that end with the same values share
/// one play (`KeptRollTargets`). Every figure equals the one with every keep played, and a
/// script whose roll hook reads `r.kept` to decide is caught and played keep by keep.
@Suite struct KeptRollSharingTests {
    /// One turn of three d4: roll, then up to twice keep any dice and roll the rest; three
    /// alike win. `hook` is the roll hook's last lines (what it makes of the dice).
    static func turn(hook: String = "") -> String {
        """
        local t = rules { name = "Keep turn", players = 1, dice = "3d4", keep_dice = true, unordered_dice = true }
        function t.setup(g) g.state.rolls = 0 end
        function t.roll(g, p, r)
          if g.state.rolls >= 3 then error("three rolls a turn: score now", 0) end
          if g.state.rolls > 0 and not r.kept then error("roll again with 'roll keep ...'", 0) end
          if g.state.rolls == 0 and r.kept then error("roll all three first", 0) end
          g.state.rolls = g.state.rolls + 1
          table.sort(r.values)
          r.value = r.values[1]
          \(hook)
          r.kept = nil
          g.state.dice = {table.unpack(r.values)}
        end
        t.actions = {
          score = function(g, p)
            if g.state.rolls == 0 then error("roll first", 0) end
            local d = g.state.dice
            if d[1] == d[3] then g:win(p) else g:lose(p) end
          end,
        }
        return t
        """
    }

    func solve(_ script: String, sharing: Bool) throws -> BestPlay.Result {
        var options = BestPlay.Options()
        options.players = ["Ann"]
        options.sharesKeptRolls = sharing
        return try BestPlay.solve(rulesFile: try temporaryRules(script), options: options)
    }

    @Test func keepsEndingAlikeShareAPlayAndGiveTheSameAnswer() throws {
        let shared = try solve(Self.turn(), sharing: true)
        let played = try solve(Self.turn(), sharing: false)
        #expect(shared.sharedKeptRolls > 0)
        #expect(shared.everyKeepPlayedBecause == nil)
        #expect(shared.states == played.states)
        #expect(shared.moves == played.moves)
        #expect(shared.wins == played.wins)
        #expect(shared.moveCounts.map(\.0) == played.moveCounts.map(\.0))
        #expect(shared.moveCounts.map(\.1) == played.moveCounts.map(\.1))
        // Three alike within three rolls of 3d4, keeping best: 403/1024, counted apart (a
        // dynamic programme over the sets of dice after each roll, in Python).
        #expect(abs(shared.wins[0] - 403.0 / 1024) < 1e-12)
    }

    @Test func aHookThatReadsWhichDiceWereKeptIsPlayedKeepByKeep() throws {
        // How many dice were kept decides the position: keeps ending alike lead apart.
        let script = Self.turn(hook: "g.state.kept = r.kept and #r.kept or 0")
        let shared = try solve(script, sharing: true)
        let played = try solve(script, sharing: false)
        #expect(shared.everyKeepPlayedBecause?.contains("reached another position") == true)
        #expect(played.everyKeepPlayedBecause == nil)
        #expect(shared.states == played.states)
        #expect(shared.moves == played.moves)
        #expect(shared.wins == played.wins)
    }

    @Test func aHookThatReadsWhichDiceWereKeptForSomeValuesOnlyIsCaughtOnTheCheckedPositions() throws {
        // A bonus when dice were kept and every die rolled again shows 4: no keep's first
        // outcome (all ones) shows it, so only the positions that play every outcome can.
        let script = Self.turn(hook: """
          local bonus = false
          if r.kept and #r.kept > 0 and #r.kept < 3 then
            local fours = 0
            for _, v in ipairs(r.values) do if v == 4 then fours = fours + 1 end end
            for _, place in ipairs(r.kept) do if r.previous.values[place] == 4 then fours = fours - 1 end end
            bonus = fours == 3 - #r.kept
          end
          g.state.bonus = bonus or nil
          """)
        let shared = try solve(script, sharing: true)
        let played = try solve(script, sharing: false)
        #expect(shared.everyKeepPlayedBecause != nil)
        #expect(shared.states == played.states)
        #expect(shared.moves == played.moves)
        #expect(shared.wins == played.wins)
    }

    @Test func aKeepRefusedPastItsFirstOutcomeMakesEveryKeepPlayed() throws {
        // Keeping dice and ending with a 4 is refused: decided by the keep and the values
        // (a keep's first outcome, all ones, is taken unless a 4 was kept).
        let script = Self.turn(hook: """
          if r.kept and #r.kept > 0 then
            for _, v in ipairs(r.values) do if v == 4 then error("no fours after a keep", 0) end end
          end
          """)
        let shared = try solve(script, sharing: true)
        let played = try solve(script, sharing: false)
        #expect(shared.everyKeepPlayedBecause?.contains("was refused") == true)
        #expect(shared.states == played.states)
        #expect(shared.moves == played.moves)
        #expect(shared.wins == played.wins)
    }

    @Test func theSetOfValuesAKeepEndsWithIsTheKeptOnesAndTheRolledOnes() throws {
        let targets = KeptRollTargets(last: [6, 2, 5, 5, 3], playsEverything: false)
        #expect(targets.finalValues(keeping: [1, 3], rolled: [1, 1, 4]) == [1, 1, 4, 5, 6])
        #expect(targets.finalValues(keeping: [], rolled: [3, 2, 1]) == [1, 2, 3])
        #expect(throws: Never.self) { try targets.note([1, 2, 3], reached: 7, keep: "roll keep") }
        // A later outcome takes a known set's target; a keep's first is always played.
        #expect(targets.target(of: [1, 2, 3], outcome: 3) == 7)
        #expect(targets.target(of: [1, 2, 3], outcome: 0) == nil)
        #expect(targets.target(of: [1, 2, 4], outcome: 3) == nil)
        #expect(throws: Never.self) { try targets.note([1, 2, 3], reached: 7, keep: "roll keep 2") }
        #expect(throws: KeptRollsDiffer.self) { try targets.note([1, 2, 3], reached: 8, keep: "roll keep 1") }
        // A checked position shares nothing.
        let checking = KeptRollTargets(last: [1, 2, 3], playsEverything: true)
        try checking.note([1, 1, 1], reached: 2, keep: "roll keep")
        #expect(checking.target(of: [1, 1, 1], outcome: 4) == nil)
    }
}

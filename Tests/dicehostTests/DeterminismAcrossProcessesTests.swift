import Foundation
import Testing

/// The same seed and inputs give the same game in every process, whatever keys a
/// script uses: tables and functions as keys, and printed tables, used to follow
/// addresses (which differ from run to run).
@Suite struct DeterminismAcrossProcessesTests {
    static let rules = """
        local r = rules { name = "Sets", players = {2, 2} }
        function r.setup(g)
          g.state.seen = 0
          local order, set = {}, {}
          for i = 1, 40 do set[{i = i}] = i end
          for _, p in ipairs(g.players) do set[p] = p.name end
          set[print] = "print"
          set[math.floor] = "floor"
          for k, v in pairs(set) do order[#order + 1] = tostring(v) end
          g:say("pairs: %s", table.concat(order, ","))
          local first = next(set)
          g:say("next: %s, a table prints as %s", tostring(set[first]), tostring({}))
          g:say("random: %d", math.random(1000000))
        end
        function r.roll(g, p, roll) g:say("%s rolled %d", p.name, roll.total) g:next_turn() end
        return r
        """

    @Test func twoProcessesPlayTheSameGame() throws {
        let path = try writeTemporary(Self.rules, name: "sets.lua")
        let input = "roll\nroll\nroll\nstate\n"
        let first = try runDicehost(["play", path, "--seed", "5"], input: input)
        let second = try runDicehost(["play", path, "--seed", "5"], input: input)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout == second.stdout)
        #expect(first.stdout.contains("a table prints as table: 0x"), "\(first.stdout)")
        #expect(!first.stdout.contains("table: 0x7f") && !first.stdout.contains("table: 0x5"), "addresses leaked: \(first.stdout)")
        // Object keys come in creation order: print (made when the sandbox was), the
        // players (made with the game), the 40 tables (made in setup); then C functions
        // by name.
        #expect(first.stdout.contains("pairs: print,Ann,Bob," + (1...40).map(String.init).joined(separator: ",") + ",floor\n"),
                "\(first.stdout)")
    }
}

// Cost of one roll through a rule hook: the hot path of every simulation.
// Run with `make bench` (release build). Prints ns per roll, medians of several runs,
// in simulation mode (no event text, no rollback snapshots) and in play mode.
import DiceHost
import Foundation
import Lua

let rules = """
    local r = rules { name = "Bench", players = {2, 2}, dice = "2d6", params = { target = 1000000000 } }
    function r.setup(g) for _, p in ipairs(g.players) do p.score = 0 end end
    function r.roll(g, p, roll)
      p.score = p.score + roll.total
      g:say("%s has %d", p.name, p.score)
      g:next_turn()
    end
    return r
    """

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func nanosecondsPerRoll(simulation: Bool, rolls: Int) throws -> Double {
    let game = try Game(source: rules, path: "bench/roll.lua", players: ["Ann", "Bob"], seed: 1,
                        limits: LuaLimits(instructionBudget: 1_000_000))
    game.recordsEvents = !simulation
    game.transactional = !simulation
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<rolls { try game.roll() }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(rolls)
}

let runs = 7
var sim: [Double] = [], play: [Double] = []
for _ in 0..<runs {
    sim.append(try nanosecondsPerRoll(simulation: true, rolls: 200_000))
    play.append(try nanosecondsPerRoll(simulation: false, rolls: 20_000))
}
print(String(format: "roll through a hook, simulation mode  %8.0f ns/roll (%.0f rolls/s)", median(sim), 1e9 / median(sim)))
if !play.isEmpty { print(String(format: "roll through a hook, play mode        %8.0f ns/roll (events + rollback snapshot)", median(play))) }
print("medians of \(runs) runs")

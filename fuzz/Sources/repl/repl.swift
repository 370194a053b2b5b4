// Fuzzes the REPL command parser: each input line goes to `GameSession.run` on a small
// built-in game (actions with arguments, timers, LEDs, cards, params of every type).
// The game is made once per process and started afresh (same seed) for every input.
// Invariants checked after every line:
// - a line answered with "error: ..." leaves the game as it was (same game, same events);
// - the session saved as a transcript parses back with the same inputs.
// `save`/`load` are pointed at one scratch file, so the fuzzer writes nowhere else.
import DiceHost
import Foundation
import FuzzSupport
import Lua

let ruleSource = #"""
local t = rules {
  name = "Fuzz table", players = {2, 3}, dice = "2d6",
  params = { target = 30, factor = 1.5, word = "go", strict = false },
}
function t.setup(g)
  g.state.pot = 0
  for _, p in ipairs(g.players) do p.score = 0 end
end
function t.turn(g, p)
  g:say("%s to roll (%d)", p.name, p.score)
  if g.state.pulse then g.state.pulse:cancel() end
  g.state.pulse = timer.after(2000, function(g) led.blink(led.ALL, "blue", {on = 200, cycle = 400, count = 1}) end)
end
function t.roll(g, p, r)
  if not r.ok then led.blink(led.ALL, "red", {on = 100, cycle = 200, count = 2, priority = 1}); return end
  p.score = p.score + r.total
  led.blink(led.face(r.value), "green", {on = 100, cycle = 50, count = 3})
  if r.doubles then g:say("doubles!"); return end
  if p.score >= g.params.target then g:win(p) else g:next_turn() end
end
t.actions = {
  bet = function(g, p, n)
    if math.type(n) ~= "integer" or n < 1 then error("bet a whole number of chips", 0) end
    g.state.pot = g.state.pot + n
    g:say("%s bets %d (pot %d)", p.name, n, g.state.pot)
  end,
  note = function(g, p, ...) g:say("%s", table.concat({...}, "\n")) end,
  emit = function(g, p, name, ...) g:emit(tostring(name), {...}) end,
  light = function(g, p, face, colour, ms)
    if ms then led.fade(led.face(face), colour, ms) else led.set(led.face(face), colour) end
  end,
  dark = function(g, p) led.off() end,
  every = function(g, p, ms) g.state.clock = timer.every(ms, function(g) g.state.pot = g.state.pot + 1 end) end,
  stop = function(g, p) if g.state.clock then g.state.clock:cancel() end end,
  deal = function(g, p, n)
    local deck = cards.shuffle(cards.deck())
    p.hand = {}
    for i = 1, n or 5 do p.hand[i] = deck[i] end
    g:say("%s gets %s", p.name, tostring(deck[1]))
  end,
  extra = function(g, p, notation) local r = dice.roll(notation); g:say("%s: %s", notation, tostring(r)) end,
  pass = function(g, p) g:next_turn() end,
  skip = function(g, p, name) g:next_turn(g:player(name)) end,
  out = function(g, p) g:eliminate(p) end,
  resign = function(g, p) g:lose(p) end,
  tie = function(g, p) g:draw() end,
  score = function(g, p, v) g:record("score", v) end,
  boom = function(g, p) error("boom") end,
  -- Bounded, so they trip the 1M-instruction, 8 MiB game but end soon in a game `load` made (default limits).
  spin = function(g, p) for i = 1, 5e6 do end end,
  hog = function(g, p) local t = {} for i = 1, 2e6 do t[i] = i end end,
}
function t.bot(g, p) return "roll" end
function t.status(g) return string.format("pot %d", g.state.pot) end
return t
"""#

final class Harness {
    let directory: String
    let scratch: String
    let game: Game

    init() {
        directory = NSTemporaryDirectory() + "dicehost-fuzz-repl-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let rules = directory + "/table.lua"
        scratch = directory + "/saved.txt"
        _ = FileManager.default.createFile(atPath: rules, contents: Data(ruleSource.utf8))
        do {
            game = try Game(source: ruleSource, path: rules, players: ["Ann", "Bob", "Cy"], seed: 7,
                            limits: LuaLimits(memoryBytes: 8 << 20, instructionBudget: 1_000_000))
        } catch {
            fatalError("the built-in rules do not load: \(error)")
        }
    }
}

nonisolated(unsafe) let harness = Harness()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let game = harness.game
    do { try game.startNewGame(seed: 7) } catch { fatalError("startNewGame failed: \(error)") }
    try? FileManager.default.removeItem(atPath: harness.scratch)
    let session = GameSession(game: game)
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: true).prefix(64).enumerated() {
        var words = raw.split(whereSeparator: \.isWhitespace).map(String.init)
        // save/load/as … save: only ever the scratch file.
        if let i = words.firstIndex(where: { $0 == "save" || $0 == "load" }), i + 1 < words.count {
            words[i + 1] = harness.scratch
        }
        let line = words.joined(separator: " ")
        let gameBefore = session.game, eventsBefore = session.game.events.count
        let reply = session.run(line)
        if reply.lines.first?.hasPrefix("error:") == true {
            fuzzCheck(session.game === gameBefore, "line \(index + 1) '\(line)' failed but replaced the game")
            fuzzCheck(session.game.events.count == eventsBefore,
                      "line \(index + 1) '\(line)' failed (\(reply.lines[0])) but the events went from \(eventsBefore) to \(session.game.events.count)")
        }
        if reply.quit { break }
    }
    // The session as a transcript reads back with the same inputs.
    let saved = session.transcript(for: harness.scratch)
    do {
        let parsed = try Transcript(text: saved, path: harness.scratch)
        fuzzCheck(parsed.steps.map(\.input) == session.steps.map(\.input),
                  "the saved session reads back with other inputs:\n\(saved)")
    } catch {
        fuzzCheck(false, "the saved session does not parse: \(error)\n\(saved)")
    }
    return 0
}

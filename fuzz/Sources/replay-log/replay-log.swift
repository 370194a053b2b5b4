// Fuzzes what `dicehost replay` reads: a JSON Lines game log from someone else, parsed
// by `GameLog.parse` and, when it parses, replayed against a small built-in game (the
// header's rules file is ignored: every game is the built-in one, with the header's
// players, seed and params). Invariants:
// - the log parses the same with CRLF line ends as with LF;
// - a replay writes no file and reads none (a log parsed from text has no folder):
//   every `save` and `sensor KIND FILE` it meets is refused;
// - every line of the report is short (huge events are truncated).
import DiceHost
import Foundation
import FuzzSupport
import Lua

let ruleSource = #"""
local t = rules { name = "Fuzz log", players = {1, 3}, dice = "2d6", params = { target = 20 } }
function t.setup(g) for _, p in ipairs(g.players) do p.score = 0 end end
function t.turn(g, p) g:say("%s to roll (%d)", p.name, p.score) end
function t.roll(g, p, r)
  if not r.ok then return end
  p.score = p.score + r.total
  if p.score >= g.params.target then g:win(p) else g:next_turn() end
end
t.actions = { pass = function(g, p) g:next_turn() end, boom = function(g, p) error("boom", 0) end }
function t.bot(g, p) return "roll" end
return t
"""#

final class Harness {
    let directory: String
    let rules: String

    init() {
        directory = NSTemporaryDirectory() + "dicehost-fuzz-replay-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        rules = directory + "/table.lua"
        _ = FileManager.default.createFile(atPath: rules, contents: Data(ruleSource.utf8))
        // Anything a replay wrote would land here (relative names) or be named by the log.
        FileManager.default.changeCurrentDirectoryPath(directory)
    }

    func makeGame(_ header: GameLog.Header, _: String) throws -> Game {
        try Game(source: ruleSource, path: rules, players: header.players, seed: header.seed, params: header.overrides,
                 limits: LuaLimits(memoryBytes: 8 << 20, instructionBudget: 1_000_000))
    }

    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() }
}

nonisolated(unsafe) let harness = Harness()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parsed = Result { try GameLog.parse(text) }
    let crlf = Result { try GameLog.parse(text.replacingOccurrences(of: "\n", with: "\r\n")) }
    switch (parsed, crlf) {
    case (.success(let a), .success(let b)):
        fuzzCheck(a.map(\.header) == b.map(\.header) && a.map { $0.entries.map(\.entry) } == b.map { $0.entries.map(\.entry) },
                  "the log parses differently with CRLF line ends")
    case (.failure(let a), .failure(let b)):
        fuzzCheck("\(a)" == "\(b)", "the log fails differently with CRLF line ends: \(a) / \(b)")
    default:
        fuzzCheck(false, "the log parses with one kind of line end only")
    }
    guard case .success(var games) = parsed else { return 0 }
    for index in games.indices { games[index].entries = Array(games[index].entries.prefix(32)) }
    let before = harness.files
    let report = GameReplay.run(Array(games.prefix(2)), makeGame: harness.makeGame)
    fuzzCheck(harness.files == before, "the replay wrote a file: \(harness.files)")
    for line in report.lines {
        fuzzCheck(line.utf8.count < 4096, "a report line of \(line.utf8.count) bytes: \(line.prefix(200))")
    }
    return 0
}

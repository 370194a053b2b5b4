// What the library does for one served input (issue 47): the input itself (with its
// rollback point) and then every seat's look (view and table), as a room makes them.
// Count instructions with callgrind, collecting only inside the two functions:
//   valgrind --tool=callgrind --toggle-collect='*benchServedInput*' .build/debug/bench-served-input snap 200
//   valgrind --tool=callgrind --toggle-collect='*benchSeatLooks*' .build/debug/bench-served-input snap 200
// and divide the total by the inputs it prints. A quarter of the inputs are refused (a
// move out of turn), as a busy room's are, so rollback is measured too; with a third
// argument `rule` (Liar's Dice), that quarter is a bid the rules refuse (rule code ran, so
// the input is rolled back). Inputs are typed and applied as a room applies them.
import DiceHost
import Foundation
import Lua

let arguments = Array(CommandLine.arguments.dropFirst())
let game = arguments.first ?? "snap"
let inputs = arguments.dropFirst().first.flatMap { Int($0) }.map { min(max($0, 1), 100_000) } ?? 200
let players = ["Ann", "Bob", "Cat", "Dan"]
let file = game == "liars" ? "rules/liars-dice.lua" : "rules/snap.lua"
let ruleRefusals = arguments.dropFirst(2).first == "rule"

func makeGame(seed: UInt64) throws -> Game {
    let made = try Game(rulesFile: file, players: players, seed: seed)
    made.keepsUndoHistory = false
    return made
}

/// One input as a client sends it: the current player's bot move, or (every fourth) the
/// same from a player whose turn it is not, which is refused and rolled back.
@inline(never)
func benchServedInput(_ game: Game, step: Int) -> Bool {
    guard let current = game.currentPlayer else { return false }
    if step % 4 == 3, ruleRefusals {
        return game.apply(GameInput(.action(name: "bid", arguments: [.integer(0), .integer(7)]), seat: current)).isApplied
    }
    if step % 4 == 3, let other = players.first(where: { $0 != current }) {
        if file.hasSuffix("snap.lua") { return game.apply(GameInput(.action(name: "flip", arguments: []), seat: other)).isApplied }
        return game.apply(GameInput(.roll(.random), seat: other)).isApplied
    }
    return game.apply(GameInput(.bot)).isApplied
}

@inline(never)
func benchSeatLooks(_ game: Game) -> Int {
    game.viewsAndTablesText(for: players).count
}

var seed: UInt64 = 1
var current = try makeGame(seed: seed)
var played = 0, refused = 0, looks = 0
for step in 0..<inputs {
    if current.isOver || current.currentPlayer == nil {
        seed += 1
        current = try makeGame(seed: seed)
    }
    if !benchServedInput(current, step: step) { refused += 1 }
    played += 1
    looks += benchSeatLooks(current)
}
print("\(game): \(played) inputs (\(refused) refused), \(looks) seat looks, \(seed) games")

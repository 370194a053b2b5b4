// What one room's game holds, part by part (issue 32): `swift run -c release bench-room-memory`
// (or `make bench-idle-rooms`, which runs it beside bench/idle-rooms.py). Games are made as a
// server's room makes them (4 seats, no undo history) and played a few inputs; the Lua
// allocator's count and the process's resident memory (after malloc_trim) say what each holds.
import DiceHost
import Foundation
import Glibc
import Lua

/// The process's resident bytes after malloc gave its free pages back (`malloc_trim`, looked
/// up at run time: malloc.h is not in Swift's Glibc module): what is in use, give or take
/// the fragments of partly used pages. Games are made on one thread, in one malloc arena.
func residentInUse() -> Int {
    if let trim = mallocTrim { _ = trim(0) }
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

let mallocTrim: (@convention(c) (Int) -> Int32)? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map {
    unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self)
}

func kib(_ bytes: Int) -> String { String(format: "%.1f KiB", Double(bytes) / 1024) }

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.first.flatMap { Int($0) }.map { min(max($0, 1), 10_000) } ?? 200
let players = ["Ann", "Bob", "Cat", "Dan"]

/// Plays `inputs` inputs the way a room's clients would: the current player's flip or roll, or a bid.
func play(_ game: Game, rules: String, inputs: Int) {
    for _ in 0..<inputs {
        guard let current = game.currentPlayer, !game.isOver else { return }
        if rules == "snap.lua" {
            try? game.act("flip", by: current)
        } else if (try? game.roll(by: current)) == nil {
            try? game.act("bid", by: current, arguments: [.integer(Int64(game.events.count % 3 + 1)), .integer(3)])
        }
    }
}

/// Makes `count` of something and reports what each holds on average.
func measure<T>(_ label: String, _ make: () throws -> T, lua: (T) -> Int) rethrows -> [T] {
    let before = residentInUse()
    var made: [T] = []
    made.reserveCapacity(count)
    for _ in 0..<count { made.append(try make()) }
    let after = residentInUse()
    let luaBytes = made.reduce(0) { $0 + lua($1) } / count
    print("\(label): resident \(kib((after - before) / count)) each, of which the Lua state counts \(kib(luaBytes))")
    return made
}

print("\(count) of each, made one after another on one thread")
let states = try measure("an empty Lua state (sandboxed base libraries)", { try LuaState() }, lua: { $0.memoryUsed })
_ = states
let runtimeOnly = try measure("a game of rules that do nothing (the runtime and its libraries, 4 seats)", { () -> Game in
    let game = try Game(source: "local r = rules { name = \"Nothing\", players = {1, 4} }; function r.roll() end; return r", path: "nothing.lua", players: players)
    game.keepsUndoHistory = false
    return game
}, lua: { $0.memoryUse.luaBytes })
_ = runtimeOnly

for rules in ["snap.lua", "liars-dice.lua"] {
    let path = "rules/" + rules
    let source = try String(contentsOfFile: path, encoding: .utf8)
    let compiled = try measure("\(rules) compiled alone in an empty state (its functions, no call)", { () -> LuaState in
        let lua = try LuaState()
        _ = try lua.load(source, chunkName: path)
        return lua
    }, lua: { $0.memoryUsed })
    let compiledExtra = compiled.reduce(0) { $0 + $1.memoryUsed } / count - states.reduce(0) { $0 + $1.memoryUsed } / count
    print("  the compiled script: \(kib(compiledExtra)) a state")
    let before = residentInUse()
    var games: [Game] = []
    for seed in 0..<count {
        let game = try Game(rulesFile: path, players: players, seed: UInt64(seed))
        game.keepsUndoHistory = false
        play(game, rules: rules, inputs: 4)
        games.append(game)
    }
    let after = residentInUse()
    func average(_ f: (Game) -> Int) -> Int { games.reduce(0) { $0 + f($1) } / count }
    let luaHeld = average { $0.memoryUse.luaBytes }
    print("\(rules), 4 seats, 4 inputs played: resident \(kib((after - before) / count)) a game; Lua \(kib(luaHeld)); "
          + "events \(average { $0.memoryUse.events }) (\(kib(average { $0.memoryUse.eventBytes })) as the host counts them)")
    for game in games { game.lua.collectGarbage() }
    let collected = average { $0.memoryUse.luaBytes }
    let afterCollect = residentInUse()
    print("  after a full garbage collection: Lua \(kib(collected)) (garbage \(kib(luaHeld - collected))); resident \(kib((afterCollect - before) / count))")
    for game in games { game.releaseIdleMemory() }
    let released = average { $0.memoryUse.luaBytes }
    let afterRelease = residentInUse()
    print("  without the rollback copy of g: Lua \(kib(released)) (the copy \(kib(collected - released))); resident \(kib((afterRelease - before) / count))")
    print("  so: the Lua state (libraries, runtime, rules, g) \(kib(released)); the rest (Swift objects, malloc's headers and fragments) about \(kib((afterRelease - before) / count - released))")
}

// A script fuzzer: turns the fuzz bytes into a Lua rule script whose hooks call every
// function of the scripting API (g:*, dice, led, timer, cards, math, string, utf8,
// table, base functions, metatables, coroutines) with hostile values (integer limits,
// NaN, infinities, huge strings, deep and cyclic tables, metatables that raise or
// re-enter the host, coroutines, wrong types, players and rolls of an earlier game),
// from odd places (pcall, coroutines, xpcall handlers, timers, metamethods the host
// triggers). Loads it under a small budget and plays a few inputs. A script error is
// fine; a trap or a broken transaction (a failed input that changed the game) is a bug.
// FUZZ_PRINT_SCRIPT=1 prints each generated script (to reproduce a crash by hand).
import DiceHost
import Foundation
import FuzzSupport
import Lua

/// Values as Lua expressions; evaluated inside hooks, where `g`, `p`, `r` (maybe nil),
/// `H` (prepared hostile values) and `stash` (what an earlier hook or game left) exist.
let values: [String] = [
    "nil", "true", "false", "0", "1", "-1", "2", "3", "6", "7", "63", "64", "1000", "30000",
    "math.maxinteger", "math.mininteger", "(math.maxinteger - 1)", "(math.mininteger + 1)",
    "(1 << 31)", "(1 << 32)", "(1 << 53)", "(-(1 << 62))",
    "(0/0)", "(1/0)", "(-1/0)", "-0.0", "0.5", "1e308", "-1e308", "2^63", "-(2^63)", "1e-320", "9007199254740993.0",
    "''", "'red'", "'green'", "'off'", "'#00ff00'", "'#GGGGGG'", "'#fff'", "'%d %s %q'", "'%'", "'%999d'", "'%.99f'",
    "'%s%s%s%s%s%s'", "'\\0'", "'\\xff\\xfe'", "'⚀'", "'roll'", "'act'", "'Ann'", "'Bob'", "'2d6'", "'100d1000!'",
    "'0d0'", "'1d6!'", "'d'", "'4d6kh3'", "'(.-)*$'", "'[%a'", "'%f[%w]'", "'.-.-.-.-.-.-x'",
    "H.long", "H.huge", "H.percents", "string.rep('ab', 1 << 20)",
    "{}", "{1, 2, 3}", "{255, 0, 0}", "{256, -1, 0}", "{0/0, 1/0, 1}", "{'a', 'b'}", "{[0] = 1, [-1] = 2, [1.5] = 3}",
    "{on = -1, cycle = math.maxinteger, count = math.maxinteger, priority = math.mininteger}",
    "{on = 100, cycle = 200, count = 3, priority = 1}", "{on = 0/0, cycle = 1/0}", "{count = 1e300, on = 1e300}",
    "H.deep", "H.deeper", "H.cycle", "H.meta", "H.angry", "H.lenny", "H.reentrant", "H.yielder", "H.wide",
    "function() end", "function() error('fn') end", "function() error({}) end", "function() error() end",
    "H.spin", "function(...) return ... end", "H.reenter",
    "coroutine.create(function() end)", "coroutine.running()", "H.dead", "H.suspended",
    "g", "p", "r", "g.players", "g.current", "g.players[1]", "g.players[#g.players]", "g.state", "g.params",
    "stash.p", "stash.g", "stash.r", "stash.handle", "stash.card", "stash.co",
    "cards.deck()", "dice.roll('2d6')", "timer.after(10, function() end)",
    "led", "dice", "timer", "cards", "math", "string", "_ENV", "rules", "g.now", "r and r.values",
]

/// Statements: A, B, C, D are replaced by values, F by a function value.
let statements: [String] = [
    "g:say(A, B, C)", "g:say(A)", "g:say('%s', A)", "g:say('%d', A)", "g:say('%5.1f %x', A, B)", "g:emit(A, B)",
    "g:emit('e', {A, B, C})", "g:next_turn(A)", "g:next_turn()", "g:win(A)", "g:win(p)", "g:lose(A)", "g:draw()",
    "g:eliminate(A)", "g:record(A, B)", "g:record('m', A)", "g:player(A)", "g:is_over()", "g.say(A, B)", "g.win(A, B)",
    "g.current.seat = A", "p.seat = A", "g.players[1].name = A", "p.eliminated = A", "g.current = A",
    "g.players[A] = B", "g.state = A", "g.state.x = A", "g.state[A] = B", "g.params.target = A", "g.now = A",
    "g.players = A", "r.total = A", "r.values = A", "r.values[1] = A", "r.value = A", "r.flag = A", "p.last_roll = A",
    "r.previous = A", "setmetatable(g, A)", "setmetatable(p, A)", "table.remove(g.players)", "g.players[1] = A",
    "table.insert(g.players, A)",
    "dice.roll(A)", "dice.glyph(A)", "tostring(dice.roll(A))", "dice.roll(A, B)",
    "led.face(A)", "led.faces(A, B, C)", "led.faces(table.unpack(A))", "led.set(A, B)", "led.off(A)", "led.off()",
    "led.blink(A, B, C)", "led.blink(A, B, {on = C, cycle = D, count = A, priority = B})", "led.fade(A, B, C)",
    "led.set(led.face(A), B)", "led.blink(led.ALL, 'red', {on = A, cycle = B, count = C, priority = D})",
    "led.fade(led.ALL, B, A)", "led.ALL = A", "led.set(63, {A, B, C})",
    "led.blink(M, K, {on = N, cycle = N, count = N, priority = N})", "led.blink(M, K, {on = N, cycle = 100, count = 2})",
    "led.blink(M, K, {on = 100, cycle = N, count = N})", "led.blink(M, K, {count = N, priority = N})", "led.fade(M, K, N)",
    "led.set(M, K)", "led.off(M)", "led.set(M, {N, 0, 0})", "led.face(N)", "dice.glyph(N)", "math.random(N, N)",
    "stash.handle = timer.after(N, function(g) led.set(M, K) end)", "timer.every(N, function(g) g:next_turn() end)",
    "g:record('n', N)", "g.state.n = N", "r.total = N", "p.seat = N",
    "stash.handle = timer.after(A, F)", "stash.handle = timer.every(A, F)", "timer.after(A, B)", "timer.every(A, B)",
    "stash.handle:cancel()", "A:cancel()", "stash.handle.cancel(A)", "getmetatable(stash.handle)",
    "stash.handle = timer.every(A, function(g) g:say('tick %s', tostring(g.now)) end)",
    "cards.deck()", "cards.shuffle(A)", "stash.card = cards.deck()[1]; stash.card.rank = A", "tostring(stash.card)",
    "stash.card = cards.shuffle(cards.deck())[A]", "cards.shuffle(H.wide)",
    "math.random(A, B)", "math.random(A)", "math.random()", "math.randomseed(A)", "math.floor(A)", "math.tointeger(A)",
    "math.abs(A)", "math.fmod(A, B)", "math.ult(A, B)", "local _ = A // B", "local _ = A % B", "local _ = A + B",
    "local _ = A << B", "local _ = -A", "local _ = A .. B", "local _ = A < B", "local _ = A == B", "local _ = #A",
    "string.rep(A, B, C)", "string.format(A, B, C)", "string.find(A, B)", "string.find(A, B, C, D)", "string.gsub(A, B, C)",
    "string.match(A, B)", "string.gmatch(A, B)()", "string.byte(A, B, C)", "string.char(A, B)", "string.sub(A, B, C)",
    "string.upper(A)", "string.len(A)", "string.reverse(A)", "string.format('%q', A)", "string.format('%a %g', A, B)",
    "string.pack(A, B)", "string.unpack(A, B)", "string.dump(A)", "(A):rep(B)",
    "utf8.char(A)", "utf8.len(A)", "utf8.codepoint(A, B, C)", "utf8.offset(A, B)", "for _ in utf8.codes(A) do end",
    "table.concat(A, B, C, D)", "table.insert(A, B)", "table.insert(A, B, C)", "table.remove(A, B)", "table.sort(A, B)",
    "table.unpack(A, B, C)", "table.move(A, B, C, D)", "table.pack(A, B)",
    "pairs(A)", "for k, v in pairs(A) do end", "for i, v in ipairs(A) do end", "next(A, B)", "tostring(A)",
    "tonumber(A, B)", "tonumber(A)", "select(A, B, C)", "rawlen(A)", "rawequal(A, B)", "rawget(A, B)", "rawset(A, B, C)",
    "setmetatable(A, B)", "setmetatable(A, {__index = B, __gc = F})", "setmetatable(A, {__close = F})", "getmetatable(A)",
    "xpcall(A, B)", "xpcall(F, F)", "pcall(A, B)", "error(A)", "error(A, B)", "assert(A, B)", "load(A)", "load(A)()",
    "load('return ' .. tostring(A))", "require(A)", "type(A)", "print(A, B)", "dofile(A)", "loadfile(A)",
    "coroutine.wrap(A)()", "coroutine.resume(A, B)", "coroutine.status(A)", "coroutine.isyieldable()", "coroutine.close(A)",
    "coroutine.yield(A)", "coroutine.resume(coroutine.create(function() g:win(p) end))",
    "coroutine.wrap(function() coroutine.yield(g:next_turn()) end)()",
    "stash.co = coroutine.create(function(g) led.set(1, 'red'); coroutine.yield(); g:say('resumed') end); coroutine.resume(stash.co, g)",
    "coroutine.resume(stash.co, A)", "collectgarbage(A)", "collectgarbage()", "collectgarbage('count')",
    "rules(A)", "rules.extend(A, B)", "rules({name = A, players = B, dice = C, params = D})",
    "stash.g = g; stash.p = p; stash.r = r", "stash.p = stash.p or p",
    "while true do end", "local t = {} for i = 1, 1e7 do t[i] = i end", "local s = 'x' while true do s = s .. s end",
    "g.state.big = string.rep('y', 1 << 21)", "g.state.keep = A", "g.state.deep = H.deeper", "p.stuff = A",
    "g.state.co = coroutine.create(F)", "g.state.f = F", "g.state.self = g", "g.state.meta = setmetatable({}, A)",
]

/// The contexts a statement runs in.
let wrappers: [(String) -> String] = [
    { $0 },
    { "pcall(function() \($0) end)" },
    { "pcall(coroutine.wrap(function() \($0) end))" },
    { "pcall(timer.after, 250, function(g) \($0) end)" },
    { "xpcall(function() \($0) end, function(e) g:say('handled %s', tostring(e)); \($0); return e end)" },
    { "pcall(led.blink, 1, 'red', setmetatable({}, {__index = function() \($0); return 100 end}))" },
    { "pcall(string.gsub, 'abc', '%w', function() \($0) end)" },
    { "pcall(table.sort, {3, 1, 2}, function(a, b) \($0); return a < b end)" },
    { "pcall(setmetatable({}, {__tostring = function() \($0); return 'x' end}) and g.say, g, '%s', setmetatable({}, {__tostring = function() \($0); return 'x' end}))" },
]

let prelude = #"""
local stash = {}
local H = {}
H.long = string.rep('x', 100000)
H.huge = string.rep('ab', 1 << 16)
H.percents = string.rep('%s', 5000)
H.deep = {} do local t = H.deep for i = 1, 250 do t[1] = {}; t = t[1] end end
H.deeper = {} do local t = H.deeper for i = 1, 20000 do t.x = {}; t = t.x end end
H.cycle = {}; H.cycle.self = H.cycle; H.cycle[1] = H.cycle
H.wide = {} for i = 1, 5000 do H.wide[i] = i end
H.meta = setmetatable({}, {__index = function(t, k) error("index " .. tostring(k)) end,
  __newindex = function() error("newindex") end, __tostring = function() return {} end,
  __len = function() return 0/0 end, __eq = function() error("eq") end, __lt = function() error("lt") end,
  __le = function() error("le") end, __concat = function() error("concat") end, __call = function() error("call") end,
  __name = 42, __pairs = function() error("pairs") end, __unm = function() error("unm") end})
H.angry = setmetatable({}, {__index = function() return math.maxinteger end, __tostring = function() return H.huge end,
  __len = function() return math.mininteger end, __call = function() return H.angry end})
H.lenny = setmetatable({}, {__len = function() return math.maxinteger end, __index = function() return math.mininteger end})
H.reentrant = setmetatable({}, {__index = function(t, k)
  local g = stash.g
  if g then g:next_turn(); g:say("re-entered for %s", tostring(k)); led.set(63, "red"); timer.after(1, function() end) end
  return 100 end})
H.yielder = setmetatable({}, {__index = function() coroutine.yield(1) return 1 end, __len = function() coroutine.yield(2) return 2 end})
H.spin = function() while true do end end
H.reenter = function(...) local g = stash.g; if g then g:win(g.current) end return ... end
H.dead = coroutine.create(function() end); coroutine.resume(H.dead)
H.suspended = coroutine.create(function() coroutine.yield() end); coroutine.resume(H.suspended)

"""#

let identity = try! Regex(": #[0-9]+")

let diceChoices = ["1d6", "2d6", "1d6!", "4d6kh3", "100d1000!", "3d2dl1", "1d1000+999999"]

struct Script {
    var input: FuzzInput

    mutating func value() -> String { values[input.below(values.count)] }
    mutating func function() -> String { input.pick(["function() end", "function(g) g:next_turn() end", "H.spin", "H.reenter",
                                                     "function() error('timer') end", "function(g) g:say('%d', g.now) end"]) }

    /// A statement with each standalone A, B, C, D (a value) and F (a function) filled in.
    mutating func statement() -> String {
        let template = Array(statements[input.below(statements.count)])
        var text = ""
        for (i, c) in template.enumerated() {
            let before: Character = i == 0 ? " " : template[i - 1]
            let after: Character = i + 1 == template.count ? " " : template[i + 1]
            let standalone = !(before.isLetter || before.isNumber || before == "_" || before == "." || before == "'")
                && !(after.isLetter || after.isNumber || after == "_")
            if standalone, "ABCD".contains(c) { text += value() }
            else if standalone, c == "N" {
                text += input.bool() ? input.pick(["math.maxinteger", "math.mininteger", "-1", "0", "1", "(1 << 62)", "(1 << 31)",
                                                    "(0/0)", "1e308", "(math.maxinteger // 2)", "100"]) : value()
            }
            else if standalone, c == "M" { text += input.bool() ? input.pick(["1", "63", "led.ALL", "led.face(3)", "0"]) : value() }
            else if standalone, c == "K" { text += input.bool() ? input.pick(["'red'", "'green'", "'#ff00ff'", "{1, 2, 3}"]) : value() } else if standalone, c == "F" { text += function() } else { text.append(c) }
        }
        return wrappers[input.below(wrappers.count)](text)
    }

    mutating func body() -> String {
        (0..<input.below(6)).map { _ in "  " + statement() }.joined(separator: "\n")
    }

    mutating func generate() -> String {
        var s = prelude
        let players = input.pick(["{2, 3}", "2", "{1, 16}"])
        s += "local t = rules { name = 'Fuzz', players = \(players), dice = '\(input.pick(diceChoices))', "
        s += "params = { target = 20, factor = 0.5, word = 'w', flag = true } }\n"
        s += "function t.setup(g)\n  stash.g = g; stash.p = stash.p or g.players[1]\n  g.state.n = 0\n\(body())\nend\n"
        s += "function t.turn(g, p)\n\(body())\nend\n"
        s += "function t.roll(g, p, r)\n  stash.r = stash.r or r\n  g.state.n = g.state.n + 1\n\(body())\n"
        s += "  if g.state.n > 6 then g:win(p) elseif r.ok then g:next_turn() end\nend\n"
        s += "t.actions = {\n  act = function(g, p, a, b)\n\(body())\n  end,\n  calm = function(g, p) g:say('calm') end,\n}\n"
        if input.bool() { s += "function t.bot(g, p)\n\(body())\n  return 'roll'\nend\n" }
        if input.bool() { s += "function t.status(g)\n\(body())\n  return 'ok'\nend\n" }
        return s + "return t\n"
    }
}

/// Hostile arguments for actions, from the host side.
let actionArguments: [LuaValue] = [.integer(.max), .integer(.min), .number(.nan), .number(.infinity), .number(-0.0),
                                   .string(""), .string(String(repeating: "z", count: 70_000)), .boolean(true), .nil]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var script = Script(input: FuzzInput(data, size))
    let source = script.generate()
    if ProcessInfo.processInfo.environment["FUZZ_PRINT_SCRIPT"] != nil { fputs(source, stderr) }
    var input = script.input
    let players = input.pick([["Ann", "Bob"], [], ["Ann", "Bob", "Cy"]])
    let game: Game
    do {
        game = try Game(source: source, path: "fuzz/script.lua", players: players, seed: UInt64(input.byte()),
                        limits: LuaLimits(memoryBytes: 8 << 20, instructionBudget: 1_000_000))
    } catch {
        if ProcessInfo.processInfo.environment["FUZZ_PRINT_SCRIPT"] != nil { fputs("does not load: \(error)\n", stderr) }
        return 0
    }
    let session = GameSession(game: game)
    // The state as text, without the identities of tables and functions (a rollback
    // restores equal tables, not the same ones).
    func state() -> [String] { session.describeState().map { $0.replacing(identity, with: ": #") } }
    for _ in 0..<(2 + input.below(8)) {
        let before = (game.events.count, game.now, game.currentPlayer, game.isOver, state())
        var failed = false
        do {
            switch input.below(12) {
            case 0, 1, 2: try game.roll()
            case 3: try game.roll(values: (0..<game.rules.dice.count).map { _ in 1 + input.below(game.rules.dice.sides) })
            case 4: try game.roll(flag: input.bool() ? .tilt : .tooShort)
            case 5: try game.act("act", by: input.bool() ? nil : game.playerNames.last,
                                 arguments: [input.pick(actionArguments), input.pick(actionArguments)])
            case 6: try game.act("calm")
            case 7: try game.advance(by: input.pick([0, 1, 250, 1000, 2000, 30_000, 86_400_000]))
            case 8: try game.restart()
            case 9: try game.undo()
            case 10: _ = session.run(input.pick(["state", "players", "led", "log 3", "help"]))
            default: _ = session.run(input.pick(["roll", "act 1 2", "as Bob act x", "tick 1s", "roll tilt", "calm"]))
            }
        } catch {
            failed = true
        }
        // What the die shows now and later (the REPL's `led`, a front end's animation).
        for t in [game.now, game.now &+ 1, game.now &+ 1000] { _ = game.led.colors(at: t) }
        if failed {
            let after = (game.events.count, game.now, game.currentPlayer, game.isOver, state())
            fuzzCheck(after.0 == before.0 && after.1 == before.1 && after.2 == before.2 && after.3 == before.3,
                      "a failed input changed the game: events \(before.0)->\(after.0), now \(before.1)->\(after.1), current \(String(describing: before.2))->\(String(describing: after.2))")
            fuzzCheck(after.4 == before.4, "a failed input changed the state:\n\(before.4)\n->\n\(after.4)")
        }
    }
    return 0
}

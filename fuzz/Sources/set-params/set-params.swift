// Fuzzes `--set` values: `RuleSet.applying([(key, value)])` on rule sets with params of
// every type (one declares its own `dice` param, one does not), then starts a game with
// what was accepted and plays a roll, so the values also reach the Lua side.
// Input: lines "key=value" (the first '=' splits), applied in order.
import DiceHost
import Foundation
import FuzzSupport
import Lua

let sources = [
    #"""
    local t = rules { name = "Params", players = {1, 2}, dice = "2d6",
      params = { target = 30, factor = 1.5, word = "go", strict = false, big = math.maxinteger, small = math.mininteger } }
    function t.setup(g) g.state.seen = string.format("%s %s %s %s", g.params.target, g.params.factor, g.params.word, g.params.strict) end
    function t.roll(g, p, r) g:say("%d %s %d", r.total, tostring(g.params.dice), #g.params.word) end
    return t
    """#,
    #"""
    local t = rules { name = "Dice param", players = 1, params = { dice = "1d6", limit = -1, ratio = 0.0 } }
    function t.roll(g, p, r) g:say("%s %d %s", g.params.dice, g.params.limit, g.params.ratio) end
    return t
    """#,
]

let baseRules: [RuleSet] = sources.enumerated().map { index, source in
    do {
        return try Game(source: source, path: "fuzz/set-params-\(index).lua", players: []).rules
    } catch {
        fatalError("the built-in rules do not load: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let which = Int(data[0]) % sources.count
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let overrides: [(String, String)] = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(16).map { line in
        guard let eq = line.firstIndex(of: "=") else { return (String(line), "") }
        return (String(line[..<eq]), String(line[line.index(after: eq)...]))
    }
    let base = baseRules[which]
    guard let applied = try? base.applying(overrides) else { return 0 }
    fuzzCheck(applied.params.map(\.name) == base.params.map(\.name), "params renamed")
    for (a, b) in zip(applied.params, base.params) {
        fuzzCheck(a.value.typeName == b.value.typeName, "param \(a.name) changed type: \(a.value) from \(b.value)")
    }
    _ = applied.summary
    // The values reach Lua: a game with them starts and plays a roll (a script error is fine).
    do {
        let game = try Game(source: sources[which], path: "fuzz/set-params-\(which).lua", players: [], seed: 1, params: overrides,
                            limits: LuaLimits(memoryBytes: 8 << 20, instructionBudget: 1_000_000))
        fuzzCheck(game.rules.dice == applied.dice, "the game rolls \(game.rules.dice), applying said \(applied.dice)")
        try? game.roll()
        try? game.roll(values: Array(repeating: applied.dice.sides, count: applied.dice.count))
    } catch {}
    return 0
}

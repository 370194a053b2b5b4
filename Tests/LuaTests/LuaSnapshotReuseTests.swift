import Lua
import Testing

/// Issue 32: the copy of `g` taken after every input is given the copy the input began
/// from, and a table that still holds what its earlier copy holds shares that copy
/// instead of getting a new one. Copies are only read (restore and unchanged), so a
/// shared copy restores the same; a table changed in any way - a value of another number
/// subtype too - gets a copy of its own.
@Suite struct LuaSnapshotReuseTests {
    func state() throws -> (LuaState, functions: (snapshot: LuaValue, restore: LuaValue, unchanged: LuaValue), root: [LuaValue]) {
        let lua = try makeState()
        _ = try lua.run("""
            local Card = {__tostring = function(c) return c.rank .. c.suit end}
            local function card(rank) return setmetatable({rank = rank, suit = "H"}, Card) end
            root = {state = {stack = {card(1), card(2), card(3)}, pile = {}, count = 1},
                    players = {{name = "Ann"}, {name = "Bob"}}, now = 0}
            -- Whether two snapshots' copies of `t` are one table.
            function shares(copies, earlier, t) return rawequal(copies[t], earlier[t]) end
            """, chunkName: "setup.lua")
        let root = try lua.run("return root", chunkName: "root.lua")
        return (lua, lua.snapshotFunctions(), root)
    }

    func shares(_ lua: LuaState, _ copies: [LuaValue], _ earlier: [LuaValue], _ path: String) throws -> Bool {
        let t = try lua.run("return \(path)", chunkName: "path.lua")
        let shares = try lua.run("return shares", chunkName: "shares.lua")
        return try lua.call(shares.first ?? .nil, [copies[0], earlier[0]] + t).first == .boolean(true)
    }

    @Test func aCopyGivenAnEarlierOneSharesTheCopiesOfTablesThatStayedTheSame() throws {
        let (lua, f, root) = try state()
        let first = try lua.call(f.snapshot, root)
        try #require(first.count == 4)
        #expect(first[2] == .integer(11)) // root, state, stack, 3 cards, Card, pile, players, Ann, Bob
        #expect(first[3] == .integer(3))  // the cards have a metatable
        _ = try lua.run("local s = root.state; s.pile[#s.pile + 1] = table.remove(s.stack); root.now = 5", chunkName: "flip.lua")
        let second = try lua.call(f.snapshot, root + first)
        #expect(second[2] == .integer(11))
        for unchanged in ["root.state.stack[1]", "root.state.pile[1]", "getmetatable(root.state.pile[1])", "root.players", "root.players[2]", "root.state"] {
            #expect(try shares(lua, second, first, unchanged), "\(unchanged)")
        }
        for changed in ["root", "root.state.stack", "root.state.pile"] {
            #expect(try !shares(lua, second, first, changed), "\(changed)")
        }
        // Without an earlier copy every table gets a new one, as before.
        let fresh = try lua.call(f.snapshot, root)
        #expect(try !shares(lua, fresh, second, "root.players"))
    }

    @Test func sharedCopiesRestoreEachSnapshotAsItWasTaken() throws {
        let (lua, f, root) = try state()
        let first = try lua.call(f.snapshot, root)
        _ = try lua.run("root.now = 1 root.state.pile[1] = table.remove(root.state.stack)", chunkName: "one.lua")
        let second = try lua.call(f.snapshot, root + first)
        _ = try lua.run("root.now = 2 root.players[1].name = 'Cy' root.state.stack[1].rank = 9", chunkName: "two.lua")
        let third = try lua.call(f.snapshot, root + second)
        let describe = "return table.concat({root.now, root.players[1].name, #root.state.stack, #root.state.pile, root.state.stack[1].rank}, ' ')"
        _ = try lua.call(f.restore, first)
        #expect(try lua.run(describe, chunkName: "d.lua") == [.string("0 Ann 3 0 1")])
        _ = try lua.call(f.restore, third)
        #expect(try lua.run(describe, chunkName: "d.lua") == [.string("2 Cy 2 1 9")])
        _ = try lua.call(f.restore, second)
        #expect(try lua.run(describe, chunkName: "d.lua") == [.string("1 Ann 2 1 1")])
        #expect(try lua.call(f.unchanged, second).first == .boolean(true))
    }

    /// 1 and 1.0, 0.0 and -0.0 are raw-equal, but a script can tell them apart.
    @Test(arguments: [("1", "1.0", "math.type(root.now)"), ("0.0", "-0.0", "tostring(1 / root.now)")])
    func aNumberOfAnotherSubtypeOrSignIsAChange(_ before: String, _ after: String, _ shown: String) throws {
        let (lua, f, root) = try state()
        _ = try lua.run("root.now = \(before)", chunkName: "before.lua")
        let first = try lua.call(f.snapshot, root)
        let shownBefore = try lua.run("return \(shown)", chunkName: "shown.lua")
        _ = try lua.run("root.now = \(after)", chunkName: "after.lua")
        let shownAfter = try lua.run("return \(shown)", chunkName: "shown.lua")
        #expect(shownBefore != shownAfter)
        // A look that wrote the other one is seen, and put back.
        #expect(try lua.call(f.unchanged, first).first == .boolean(false))
        let second = try lua.call(f.snapshot, root + first)
        _ = try lua.call(f.restore, first)
        #expect(try lua.run("return \(shown)", chunkName: "shown.lua") == shownBefore)
        // The copy taken after the write holds the other one, not the shared earlier copy.
        _ = try lua.call(f.restore, second)
        #expect(try lua.run("return \(shown)", chunkName: "shown.lua") == shownAfter)
    }

    /// Many tables, reached more than once and in cycles, are each copied once (the set of
    /// tables seen grows as it fills), and restored.
    @Test func manyTablesReachedSeveralTimesAreCopiedOnceEach() throws {
        let (lua, f, _) = try state()
        let root = try lua.run("""
            local shared = {}
            many = {}
            for i = 1, 5000 do many[i] = {n = i, shared = shared, back = many} end
            shared.first = many[1]
            return many
            """, chunkName: "many.lua")
        let first = try lua.call(f.snapshot, root)
        #expect(first[2] == .integer(5002))
        _ = try lua.run("many[2500].n = 0 many[5000] = nil", chunkName: "w.lua")
        let second = try lua.call(f.snapshot, root + first)
        #expect(second[2] == .integer(5001))
        _ = try lua.call(f.restore, first)
        #expect(try lua.run("return #many, many[2500].n, many[5000].shared.first == many[1]", chunkName: "r.lua")
                == [.integer(5000), .integer(2500), .boolean(true)])
    }

    /// A restore compares each table with its copy and rewrites only those that differ,
    /// saying whether all were as copied (a look that wrote nothing, or one field).
    @Test func aRestoreSaysWhetherAnythingDifferedAndPutsBackWhatDid() throws {
        let (lua, f, root) = try state()
        let copy = try lua.call(f.snapshot, root)
        #expect(try lua.call(f.restore, copy) == [.boolean(true)])
        _ = try lua.run("root.now = 7 setmetatable(root.players[1], {})", chunkName: "look.lua")
        #expect(try lua.call(f.restore, copy) == [.boolean(false)])
        #expect(try lua.run("return root.now, getmetatable(root.players[1])", chunkName: "r.lua") == [.integer(0), .nil])
        #expect(try lua.call(f.restore, copy) == [.boolean(true)])
        #expect(try lua.call(f.unchanged, copy).first == .boolean(true))
    }
}

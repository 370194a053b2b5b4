import Lua
import Testing

/// Issue 32: a look at a game (a seat's view, its table, the status line) leaves `g` as
/// the last input's copy left it. Instead of restoring every table after every look, the
/// host first asks `unchanged(copies, metatables)`, which only reads; so it must see every
/// kind of write a hook can make, however deep, or a write would reach the next seat's
/// view and the game.
@Suite struct LuaSnapshotUnchangedTests {
    /// A state whose global `root` is a small game-like tree, and the copy of it.
    func copied() throws -> (LuaState, snapshot: [LuaValue], functions: (snapshot: LuaValue, restore: LuaValue, unchanged: LuaValue)) {
        let lua = try makeState()
        _ = try lua.run("""
            local card = setmetatable({rank = 5, suit = "hearts"}, {__tostring = function(c) return c.rank .. c.suit end})
            root = {state = {pile = {card, card}, count = 2, flags = {[true] = "yes", [1.5] = "x"}},
                    players = {{name = "Ann", hand = {}}, {name = "Bob", hand = {card}}}, now = 0}
            """, chunkName: "setup.lua")
        let functions = lua.snapshotFunctions()
        let root = try lua.run("return root", chunkName: "root.lua")
        let snapshot = try lua.call(functions.snapshot, root)
        return (lua, snapshot, functions)
    }

    func unchanged(_ lua: LuaState, _ f: LuaValue, _ snapshot: [LuaValue]) throws -> LuaValue? {
        try lua.call(f, snapshot).first
    }

    @Test func anUntouchedTreeAndOneOnlyReadAreUnchanged() throws {
        let (lua, snapshot, f) = try copied()
        #expect(try unchanged(lua, f.unchanged, snapshot) == .boolean(true))
        _ = try lua.run("local n = 0 for k, v in pairs(root.state.pile[1]) do n = n + 1 end return tostring(root.players[2].hand[1]), n, #root.state.pile", chunkName: "read.lua")
        #expect(try unchanged(lua, f.unchanged, snapshot) == .boolean(true))
        // Setting a field to the value it has is no change either.
        _ = try lua.run("root.state.count = 2 root.players[1].name = 'Ann'", chunkName: "same.lua")
        #expect(try unchanged(lua, f.unchanged, snapshot) == .boolean(true))
    }

    static let writes = [
        "root.now = 1",                                      // a field of the root
        "root.state.pile[1].rank = 6",                       // deep, in a table reached twice
        "root.state.extra = 1",                              // a new key
        "root.state.count = nil",                            // a key removed
        "root.state.flags[true] = nil root.state.flags[2.5] = 'x'", // one key for another, same count
        "root.players[1].hand[1] = {}",                      // a new table hung on the tree
        "root.state.pile[2] = {rank = 5, suit = 'hearts'}",  // an equal table, not the same one
        "getmetatable(root.state.pile[1]).__index = {}",     // a metatable's contents
        "setmetatable(root.players[1], {})",                 // a metatable set
        "setmetatable(root.state.pile[1], nil)",             // a metatable removed
        "root.count = 1 root.count = nil root.now = 0 table.remove(root.state.pile)", // shrunk
    ]

    @Test(arguments: 0..<writes.count) func everyWriteIsSeenAndTheRestorePutsItBack(_ index: Int) throws {
        let (lua, snapshot, f) = try copied()
        _ = try lua.run(Self.writes[index], chunkName: "write.lua")
        #expect(try unchanged(lua, f.unchanged, snapshot) == .boolean(false), "\(Self.writes[index])")
        _ = try lua.call(f.restore, snapshot)
        #expect(try unchanged(lua, f.unchanged, snapshot) == .boolean(true), "\(Self.writes[index])")
    }
}

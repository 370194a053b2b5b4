import Lua

/// The canonical encoding of a game position, and its way back: the Lua half of exact
/// odds. Everything the rules can see is in the tables reachable from `g` (the state,
/// the players, `g.current`, params, the clock) plus the host's pending timers and the
/// outcome; the encoding walks those tables breadth first from `g` and its players,
/// keys sorted as `pairs` sorts them, so two positions the rules cannot tell apart
/// encode the same, and one that they can, differently.
///
/// The encodings (byte strings) live in the Lua state, which numbers them: Swift only
/// sees state numbers. Decoding puts a position back into the live `g` and player
/// tables in place (the host holds those by identity) and makes every other table anew.
///
/// What stands for things that are not data:
/// - functions, coroutines, userdata and metatables are the same objects in every
///   position (the prelude's Roll and Timer metatables, a rule's helpers): numbered by
///   identity;
/// - a timer handle's `id` is replaced by the timer's rank in the pending queue (0 for a
///   timer no longer pending), so positions that differ only in how many timers were
///   ever set are the same;
/// - with `dropsLastRoll`, the players' `last_roll` (kept by the runtime for
///   `r.previous`) is left out: the analysis turns it on only for scripts that never
///   mention `previous` or `last_roll`.
enum StateCodec {
    static let chunkName = "dicehost-odds"
    /// The Lua source: `dicehost-odds.lua` beside this file, compiled into the binary.
    static var source: String { String(decoding: PackageResources.dicehost_odds_lua, as: UTF8.self) }

    struct Functions {
        var encode: LuaValue
        var decode: LuaValue
    }

    static func load(into lua: LuaState) throws -> Functions {
        let chunk = try lua.load(source, chunkName: chunkName)
        let globals = lua.globals
        let arguments: [LuaValue] = [lua.rawNext, lua.get(globals, "getmetatable"), lua.get(globals, "setmetatable"),
                                     lua.get(globals, "rawget"), lua.get(globals, "rawset")]
        guard case .table(let exports)? = try lua.call(.function(chunk), arguments, budget: .some(nil)).first else {
            throw OddsError.internal("the odds codec did not load")
        }
        return Functions(encode: lua.get(exports, "encode"), decode: lua.get(exports, "decode"))
    }
}

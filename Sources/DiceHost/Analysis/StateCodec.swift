import Lua

/// The canonical encoding of a game position, and its way back: the Lua half of exact
/// odds. Everything the rules can see is in the tables reachable from `g` (the state,
/// the players, `g.current`, params, the clock) plus the host's pending timers and the
/// outcome; the encoding walks those tables breadth first from `g` and its players,
/// keys sorted as `pairs` sorts them, so two positions the rules cannot tell apart
/// encode the same, and one that they can, differently.
///
/// The walk and its way back are C (`position_codec.c` in CLuaSupport, one call per
/// position, the same keys byte for byte as the Lua codec it replaced); the numbering of
/// positions and constants is Lua.
///
/// The encodings (byte strings) are numbered in C, outside the Lua heap
/// (`position_index.c`, so the collector never walks them): Swift only sees state
/// numbers. Decoding puts a position back into the live `g` and player
/// tables in place (the host holds those by identity) and makes every other table anew.
///
/// What stands for things that are not data:
/// - functions, coroutines, userdata and metatables are the same objects in every
///   position (the prelude's Roll and Timer metatables, a rule's helpers): numbered by
///   identity;
/// - a timer handle's `id` is replaced by the timer's rank in the pending queue (0 for a
///   timer no longer pending), so positions that differ only in how many timers were
///   ever set are the same;
/// - metatables are data like any table (an `__index` table holding state, a proxy),
///   read past `__metatable`; only the runtime's own (g's, Roll, Timer, Card) are
///   constants, and a position that finds one changed is refused;
/// - while dropping last rolls, each player's `last_roll` (kept by the runtime for
///   `r.previous`) is a stand-in that notes any look into it (`OddsWatch`); once a hook
///   looks, or reaches the last roll some other way, the analysis starts again with
///   last rolls in every position. So that is decided by what the script does.
enum StateCodec {
    static let chunkName = "dicehost-odds"
    /// The Lua source: `dicehost-odds.lua` beside this file, compiled into the binary.
    static var source: String { String(decoding: PackageResources.dicehost_odds_lua, as: UTF8.self) }

    struct Functions {
        var encode: LuaValue
        var decode: LuaValue
        var configure: LuaValue
        /// A position's key without numbering it (statistics forgotten first).
        var keyOf: LuaValue
        /// (g, players, names): takes the starting values of `rules.statistics`.
        var rememberStatistics: LuaValue
        /// (g, players): puts the starting values back in the live game.
        var forgetStatistics: LuaValue
    }

    static func load(into lua: LuaState) throws -> Functions {
        let chunk = try lua.load(source, chunkName: chunkName)
        let arguments: [LuaValue] = [lua.rawNext, lua.positionEncoderFactory(), lua.positionIndexFactory()]
        guard case .table(let exports)? = try lua.call(.function(chunk), arguments, budget: .some(nil)).first else {
            throw OddsError.internal("the odds codec did not load")
        }
        return Functions(encode: lua.get(exports, "encode"), decode: lua.get(exports, "decode"),
                         configure: lua.get(exports, "configure"), keyOf: lua.get(exports, "key_of"),
                         rememberStatistics: lua.get(exports, "remember_statistics"),
                         forgetStatistics: lua.get(exports, "forget_statistics"))
    }
}

/// The last roll's stand-ins and the watch on the script's raw functions
/// (`dicehost-odds-watch.lua`), installed before the rule script loads.
final class OddsWatch: @unchecked Sendable {
    static let chunkName = "dicehost-odds-watch"
    var exports: LuaRef?

    func install(into lua: LuaState) throws {
        let source = String(decoding: PackageResources.dicehost_odds_watch_lua, as: UTF8.self)
        let chunk = try lua.load(source, chunkName: Self.chunkName)
        guard case .table(let table)? = try lua.call(.function(chunk), [.table(lua.globals), lua.rawMetatableFunctions().get],
                                                      budget: .some(nil)).first else {
            throw OddsError.internal("the odds watch did not load")
        }
        exports = table
    }

    func standIn(seat: Int, lua: LuaState) throws -> LuaValue {
        guard let exports else { throw OddsError.internal("the odds watch is not installed") }
        return try lua.call(lua.get(exports, "stand_in"), [.integer(Int64(seat))], budget: .some(nil)).first ?? .nil
    }

    func metatable(lua: LuaState) -> LuaValue {
        guard let exports else { return .nil }
        return lua.get(exports, "metatable")
    }

    /// Forgets that a hook looked (a look the analysis made itself, not the rules).
    func reset(lua: LuaState) {
        guard let exports else { return }
        _ = try? lua.call(lua.get(exports, "reset"), [], budget: .some(nil))
    }

    /// Whether a hook looked into a stand-in since the analysis began.
    func observed(lua: LuaState) -> Bool {
        guard let exports, let result = try? lua.call(lua.get(exports, "observed"), [], budget: .some(nil)).first else { return false }
        return result == .boolean(true)
    }
}

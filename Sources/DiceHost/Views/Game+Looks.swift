import Lua

/// Looks run on a read-only game: the view, table, choices, status and invariant hooks
/// are given stand-ins of `g`, its players and what they reach (`LuaState.look`), and a
/// write to any of them raises at once, naming the field. So a look needs no copy of `g`
/// to compare with or put back (that was half of what a served input cost),
/// and a look that writes is told so instead of having its write silently undone.
extension Game {
    /// Runs `body` with `g` and the player tables swapped for their read-only stand-ins:
    /// every hook `body` calls with them gets the stand-ins, while the host's own reads
    /// and writes see through them. A look inside a look is the same look. The clock a
    /// hook was shown (`g.now`) is put back as it was, so a look leaves `g` as it found it.
    func readOnlyLook<T>(_ body: () throws -> T) rethrows -> T {
        if lua.isLooking { return try body() }
        return try lua.look {
            let realG = g, realPlayers = playerTables, clockSeen = clockSeenByLua
            let shownNow = lua.get(realG, "now")
            let roots = lookRoots(g: realG, players: realPlayers)
            g = roots.gStandIn
            playerTables = roots.playerStandIns
            lua.setLookRole(hook: nil, role: nil)
            defer {
                g = realG
                playerTables = realPlayers
                if clockSeenByLua != clockSeen {
                    lua.set(realG, "now", shownNow)
                    clockSeenByLua = clockSeen
                }
            }
            return try body()
        }
    }

    /// The read-only stand-ins of `g` and the player tables a look swaps in, and the
    /// tables they stand in for. Kept from one look to the next while `g` and the player
    /// tables are the same (a stand-in reads its table as it is now, so an older one is as
    /// good as a new one): making their references per look was a tenth of what a Liar's
    /// Dice look cost over the copy-and-compare it replaced (bench/README).
    struct LookRoots {
        var g: LuaRef
        var players: [LuaValue]
        var gStandIn: LuaRef
        var playerStandIns: [LuaValue]

        /// Whether these stand in for `g` and `players` (the very references: a new one
        /// for the same table only costs making them again).
        func standIn(for g: LuaRef, _ players: [LuaValue]) -> Bool {
            guard self.g === g, self.players.count == players.count else { return false }
            for (kept, now) in zip(self.players, players) {
                guard case .table(let a) = kept, case .table(let b) = now, a === b else { return false }
            }
            return true
        }
    }

    /// The stand-ins for `g` and `players` in the look under way: the kept ones, or new.
    private func lookRoots(g realG: LuaRef, players realPlayers: [LuaValue]) -> LookRoots {
        if let kept = keptLookRoots, kept.standIn(for: realG, realPlayers) { return kept }
        // Named as reached from g; g.players[i] read by a hook gives the same stand-in.
        let made = LookRoots(
            g: realG, players: realPlayers, gStandIn: lua.readOnly(realG, as: "g"),
            playerStandIns: realPlayers.enumerated().map { index, p in lua.readOnly(p, as: "g.players[\(index + 1)]") })
        keptLookRoots = made
        return made
    }

    /// Runs one hook of a look under its name, for the error a write raises
    /// ("view hook wrote g.state.round: a view must not change the game; ...").
    func lookingAs<T>(_ hook: String, _ role: String, _ body: () throws -> T) rethrows -> T {
        lua.setLookRole(hook: hook, role: role)
        let outer = lookingHook
        lookingHook = (hook, role)
        defer {
            lua.setLookRole(hook: nil, role: nil)
            lookingHook = outer
        }
        return try body()
    }

    /// Refuses, during a look, a host function that would change the game (`g:next_turn`,
    /// `g:win`, `timer.after`, ...): a look has no rollback of its own, so its call would
    /// stick. `call` names it as the script wrote it; `fix` says where it belongs.
    /// Nothing outside a look: the same functions in an input work as ever.
    func refuseInLook(_ call: String, _ fix: String) throws {
        guard lua.isLooking else { return }
        let (hook, role) = lookingHook ?? ("a look (view, table, choices, status or invariant hook)", "a look")
        throw LuaCall.Failure.message("\(hook) called \(call): \(role) must not change the game; \(fix)")
    }

    static let passTurnElsewhere = "pass the turn in the hook that handles the input (roll, an action, turn or a timer) instead"
    static let endGameElsewhere = "end the game in the hook that handles the input (roll, an action, turn or a timer) instead"
    static let setTimersElsewhere = "set timers in the hook that handles the input (roll, an action, turn or a timer) instead"

    /// `g[key]` as a hook reads it: a stand-in during a look.
    func lookField(_ key: String) -> LuaValue {
        lua.isLooking ? lua.readOnlyField(g, .string(key)) : lua.get(g, .string(key))
    }
}

import Lua

/// The rules' optional `invariant(g)` hook: what must hold after every input (chips are
/// conserved, the player whose turn it is is still in). It raises when broken; the
/// fuzzer and rule tests with `# check: invariant` call it after each input.
///
///     function rules.invariant(g)
///       local chips = 0
///       for _, p in ipairs(g.players) do chips = chips + p.chips end
///       assert(chips + g.state.pot == 100 * #g.players, "chips are not conserved")
///     end
extension Game {
    /// Whether the rules declare an `invariant` hook.
    public var hasInvariant: Bool {
        if case .function = lua.get(rulesTable, "invariant") { return true }
        return false
    }

    /// Nil while the invariant holds (or there is none); else its error, the game left
    /// exactly as it was (whatever the hook writes is put back).
    public func brokenInvariant() -> String? {
        let hook = lua.get(rulesTable, "invariant")
        guard case .function = hook else { return nil }
        do {
            // Without transactions (the bots playing on) there is no copy to put back.
            try leavingUnchanged(restoringLua: transactional) {
                if transactional { _ = try? currentSnapshot() }
                syncClock()
                _ = try withInputBudget { try lua.call(hook, [.table(g)]) }
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Everything an input may change, as text: `g.state`, the players, whose turn it
    /// is, the outcome, the clock, the pending timers (due times), the random
    /// generator, the event count. Equal before and after means the input left the game
    /// as it was.
    func fuzzFingerprint(_ session: GameSession) -> [String] {
        session.describeState() + ["current: \(currentPlayer ?? "-")", "outcome: \(outcome.map { "\($0)" } ?? "-")",
                                   "now: \(now)", "timers: \(host.timers.pending.map(\.due).sorted())",
                                   "random: \(lua.random.state)", "events: \(events.count)",
                                   "rolls: \(rollCount)", "turns: \(turnCount)"]
    }
}

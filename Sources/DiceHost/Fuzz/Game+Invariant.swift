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
        brokenInvariantError().map { "\($0)" }
    }

    /// Nil while the invariant holds; else the error it raised (a `GameError.script`
    /// with its file and line when the hook failed).
    public func brokenInvariantError() -> Error? {
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
            return error
        }
    }

    /// Everything an input may change, as text: `g.state`, the players, whose turn it
    /// is, the outcome, the clock, the pending timers (due times), the random
    /// generator; and the event count. Equal before and after means the input left the
    /// game as it was.
    func fuzzFingerprint(_ session: GameSession) -> FuzzFingerprint {
        FuzzFingerprint(state: session.describeState() + ["current: \(currentPlayer ?? "-")", "outcome: \(outcome.map { "\($0)" } ?? "-")",
                                                         "now: \(now)", "timers: \(host.timers.pending.map(\.due).sorted())",
                                                         "random: \(lua.random.state)", "rolls: \(rollCount)", "turns: \(turnCount)"],
                        eventCount: events.count)
    }
}

/// What the fuzzer compares of a game before and after an input: its state as lines, and
/// how many events it has logged (an undo truncates the log, so a redo is compared on
/// `state` alone).
struct FuzzFingerprint: Equatable {
    var state: [String]
    var eventCount: Int

    /// Both, as lines (to show the first difference).
    var lines: [String] { state + ["events: \(eventCount)"] }
}

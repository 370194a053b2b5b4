import Foundation
import Lua

extension Game {
    /// Reloads the rule script from disk into the running game: players, `g.state`,
    /// pending timers and the clock are kept; the new hooks apply from the next input,
    /// after the optional `migrate(g)` hook has run. A script that fails to load or
    /// validate leaves the old rules running and throws the error (file and line).
    public func reload() throws {
        let data: Data
        do { data = try LuaSourceFile.read(sourcePath, limit: lua.limits.memoryBytes) } catch let problem as LuaSourceFile.Problem {
            throw GameError.invalidRules("cannot read rule script \(displayPath): \(problem.reason)", location: nil)
        }
        try reload(sourceBytes: [UInt8](data))
    }

    /// Reloads from the given text (named by `sourcePath` in errors).
    public func reload(source: String) throws {
        try reload(sourceBytes: Array(source.utf8))
    }

    /// Reloads from the script's bytes as they are (a Latin-1 byte stays that byte).
    func reload(sourceBytes source: [UInt8]) throws {
        // Without undo history, inputs since the rollback copy are replayed with the
        // hooks of the day: a reload goes back to a copy of `g` as it is now (what a
        // failing `migrate` puts back, the params' new defaults too).
        if !keepsUndoHistory, rollbackBase?.steps.isEmpty == false { lastSnapshot = nil }
        if !keepsUndoHistory, transactional { _ = try? currentSnapshot() }
        let saved = (rules, rulesTable, hooks)
        lua.forgetLoadedModules()
        // The declarations this load makes are only needed to find its rule table; the
        // old ones would keep every earlier version of the rules alive.
        defer { declared.removeAll() }
        do { try withInputBudget { try reloadRules(source: source) } } catch {
            (rules, rulesTable, hooks) = (saved.0, saved.1, saved.2)
            throw error
        }
        // A reload is a rollback point of its own: the next input that fails or is
        // refused goes back to the game as the reload left it (new param defaults in
        // g.params), not as it was before.
        lastSnapshot = nil
        _ = try? currentSnapshot()
    }

    /// Loads the new rules and runs `migrate`: one input, one budget.
    private func reloadRules(source: [UInt8]) throws {
        let (newRules, newTable) = try loadRules(source: source)
        guard (newRules.minPlayers...newRules.maxPlayers).contains(playerNames.count) else {
            throw GameError.invalidRules("the new rules need \(newRules.minPlayers) to \(newRules.maxPlayers) players; this game has \(playerNames.count)",
                                         location: newRules.location)
        }
        let oldRules = rules
        (rules, rulesTable) = (newRules, newTable)
        readHooks()
        startTemplate = nil
        let changes = paramChanges(from: oldRules, to: newRules)
        if !changes.isEmpty, case .table(let params) = lua.get(g, "params") {
            for change in changes { lua.set(params, .string(change.name), change.value) }
        }
        let migrate = lua.get(rulesTable, "migrate")
        if case .function = migrate {
            try transaction(allowWhenOver: true, undoable: false) { try call(migrate, [.table(g)]) }
        }
        let said = changes.isEmpty ? "" : "; params: " + changes.map(\.text).joined(separator: ", ")
        log(.reload(rules.name + said))
    }

    /// The params whose default the new rules changed (added, removed, or another value),
    /// except those `--set` fixed: `g.params` follows the file for them.
    func paramChanges(from old: RuleSet, to new: RuleSet) -> [(name: String, value: LuaValue, text: String)] {
        let fixed = Set(overrides.map(\.0))
        var changes: [(name: String, value: LuaValue, text: String)] = []
        for (name, value) in new.params where !fixed.contains(name) {
            guard let before = old.param(name) else {
                changes.append((name, value.luaValue, "\(name) = \(value) (new)"))
                continue
            }
            if before != value { changes.append((name, value.luaValue, "\(name) \(before) → \(value)")) }
        }
        for (name, before) in old.params where new.param(name) == nil && !fixed.contains(name) {
            changes.append((name, .nil, "\(name) \(before) → (removed)"))
        }
        if !fixed.contains("dice"), old.param("dice") == nil, new.param("dice") == nil, old.dice.text != new.dice.text {
            changes.append(("dice", .string(new.dice.text), "dice \(old.dice.text) → \(new.dice.text)"))
        }
        return changes
    }
}

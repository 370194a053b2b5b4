import Lua

/// `undo`: the state before each input, kept for the last `undoDepth` inputs.
extension Game {
    /// The state before an input, to go back to with `undo`.
    struct UndoPoint {
        var checkpoint: Checkpoint
        var snapshot: [LuaValue]
    }

    func pushUndo(_ point: UndoPoint) {
        undoGeneration += 1
        guard keepsUndoHistory else { return }
        undoStack.append(point)
        if undoStack.count > Self.undoDepth { undoStack.removeFirst(undoStack.count - Self.undoDepth) }
    }

    /// How many inputs `undo` can take back (`undoHistory`: none).
    public static let undoDepth = 200
    /// Whether there is an input to undo.
    public var canUndo: Bool { !undoStack.isEmpty }

    /// Puts the game back as it was before the last input (roll, action, clock move or
    /// restart): Lua data, host state, timers, log and the random generator. The rules
    /// stay as they are (a reload is not undone).
    public func undo() throws {
        guard let point = undoStack.popLast() else { throw GameError.refused("nothing to undo") }
        if !point.snapshot.isEmpty {
            lua.withoutBudget { _ = try? lua.call(api.restore, point.snapshot, budget: .some(nil)) }
        }
        rollBack(to: point.checkpoint)
        lastSnapshot = point.snapshot.isEmpty ? nil : point.snapshot
    }
}

import Lua

/// The game's event log, and how the outcome reads in it.
extension Game {
    var outcomeText: String {
        switch host.outcome {
        case .win(let p)?: return "\(p) won"
        case .draw?: return "a draw"
        case .loss(let p)?: return "\(p) lost"
        case nil: return "in progress"
        }
    }

    /// Drops all but the last `keeping` events from the log, between inputs: what a
    /// long-lived served room does (its room log file keeps every event), so its memory
    /// and the game's memory limit (which counts the log) do not grow for ever.
    /// `forgottenEvents` counts what was dropped: `events[i]` is the game's event number
    /// `forgottenEvents + i`. The undo history goes too (it counts events from the old start).
    public func forgetEvents(keepingLast keeping: Int) {
        guard !inTransaction, eventLog.count > max(0, keeping) else { return }
        let drop = eventLog.count - max(0, keeping)
        eventLog.removeFirst(drop)
        forgottenEvents += drop
        undoStack.removeAll()
    }

    /// Keeps an event for everyone, or for the players named in `audience`.
    func log(_ kind: @autoclosure () -> GameEvent.Kind, to audience: [String]? = nil) {
        if recordsEvents { eventLog.append(GameEvent(time: host.now, kind: kind(), audience: audience)) }
    }
}

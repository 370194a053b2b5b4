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

    /// Keeps an event for everyone, or for the players named in `audience`.
    func log(_ kind: @autoclosure () -> GameEvent.Kind, to audience: [String]? = nil) {
        if recordsEvents { eventLog.append(GameEvent(time: host.now, kind: kind(), audience: audience)) }
    }
}

import DiceHost

/// What one connection of a room may receive: the one place the server turns the game
/// (which holds every secret) into a seat's messages. A seat gets the rules' view for its
/// player and the events addressed to it or to everyone (another seat's secret roll as
/// `{"type":"roll","player":…,"hidden":true,"dice":N}`); a spectator (viewer nil) gets the
/// public view and the public events. Room logs keep everything; only sending filters.
enum SeatView {
    /// The events `viewer` may see, as the inside of a JSON list.
    static func eventsJSON<S: Sequence>(_ events: S, for viewer: String?) -> String where S.Element == GameEvent {
        events.compactMap { $0.seen(by: viewer)?.json }.joined(separator: ",")
    }

    /// The rules' view for `viewer` as JSON (`null` with an error field when the hook fails).
    static func viewJSON(_ game: Game, for viewer: String?) -> String {
        do { return try game.view(for: viewer).description } catch {
            return "{\"error\":\(GameEvent.quote("view: \(error)"))}"
        }
    }

    /// The last roll as `viewer` may see it: its values, or that it is hidden.
    static func lastRollJSON(_ game: Game, for viewer: String?) -> String? {
        let events = game.events
        guard let event = events[currentGameStart(events)...].last(where: {
            if case .roll = $0.kind { return true } else { return false }
        })?.seen(by: viewer) else { return nil }
        switch event.kind {
        case .roll(let player, let roll):
            return "{\"player\":\(GameEvent.quote(player)),\"values\":[\(roll.values.map(String.init).joined(separator: ","))],\"total\":\(roll.total),\"flag\":\"\(roll.flag.rawValue)\"}"
        case .hiddenRoll(let player, let dice):
            return "{\"player\":\(GameEvent.quote(player)),\"hidden\":true,\"dice\":\(dice)}"
        default:
            return nil
        }
    }

    /// The index of the current game's `start` event: a `restart` logs a new one, and
    /// the game before it is no part of what a client joining now is shown.
    static func currentGameStart(_ events: [GameEvent]) -> Int {
        events.lastIndex { if case .start = $0.kind { return true } else { return false } } ?? 0
    }

    /// Argument values each action declares (`rules.choices`), for the table's buttons.
    static func choicesJSON(_ rules: RuleSet) -> String {
        "{" + rules.choices.sorted { $0.key < $1.key }.map { action, values in
            GameEvent.quote(action) + ":[" + values.map(GameEvent.quote).joined(separator: ",") + "]"
        }.joined(separator: ",") + "}"
    }
}

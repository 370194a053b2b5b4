import DiceHost
import Lua

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

    /// The events of one broadcast as each seat may see them, each written once per form
    /// it is seen in (every event was written again for every seat). An event's
    /// text is made from the event as `seen(by:)` gives it to that seat, and shared only
    /// with seats that see the very same event: no seat is sent more than `eventsJSON` sends it.
    struct EventTexts {
        private let events: [GameEvent]
        /// Per event, the forms written so far (the event as seen, its JSON).
        private var written: [[(seen: GameEvent, json: String)]]

        init<S: Sequence>(_ events: S) where S.Element == GameEvent {
            self.events = Array(events)
            written = Array(repeating: [], count: self.events.count)
        }

        /// `eventsJSON(events, for: viewer)`, from the texts already written where it can.
        mutating func listJSON(for viewer: String?) -> String {
            var out = ""
            var first = true
            for index in events.indices {
                guard let seen = events[index].seen(by: viewer) else { continue }
                let json: String
                if let known = written[index].first(where: { $0.seen == seen }) {
                    json = known.json
                } else {
                    json = seen.json
                    written[index].append((seen, json))
                }
                if !first { out += "," }
                first = false
                out += json
            }
            return out
        }
    }

    /// The texts of the views written for one moment of a game: a view whose text equals
    /// one already written shares that one's storage (in Snap every seat's view is the
    /// same). Equal texts, so no seat receives anything its own view does not hold.
    typealias WrittenViews = [String]

    /// The last roll as `viewer` may see it: its values, or that it is hidden.
    static func lastRollJSON(_ game: Game, for viewer: String?) -> String? {
        // Newest first, to the first roll or the current game's start (one short walk per
        // seat, not a walk back to the start and then one forward).
        var lastRoll: GameEvent?
        for event in game.events.reversed() {
            if case .roll = event.kind { lastRoll = event; break }
            if case .start = event.kind { break }
        }
        guard let event = lastRoll?.seen(by: viewer) else { return nil }
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

    /// The moves `viewer` may make now, as a JSON object: for each action whose moves can
    /// be listed (`Game.declaredArguments`), the argument lists legal for that seat -
    /// `[]` when the seat may not make that input now (another seat's turn, out of the
    /// game, the game over), `[[]]` for an action without arguments. Actions whose moves
    /// cannot be listed (they take arguments and declare no choices) are left out: a
    /// client offers free text for them. Nil for a spectator.
    ///
    /// A `choices` function runs with the real `g` (every secret in it) under one input's
    /// budget, and its list is capped (`Game.maxListedMoves`); a list that fails (a script
    /// error, the budget, the cap) leaves its action out rather than the state unsent.
    static func movesJSON(_ game: Game, for viewer: String?) -> String? {
        movesJSON(game, for: viewer, MovesContext(game))
    }

    /// What `movesJSON` reads of the game that is the same for every seat at one moment:
    /// how each action declares its arguments, whose turn it is, whether the game is over.
    /// A broadcast reads it once for all its seats (it was read once per seat).
    struct MovesContext {
        typealias Declared = [(action: String, arguments: Game.ActionArguments?)]
        /// Each action and its declared arguments (nil: the declaration could not be read).
        let declared: Declared
        let current: String?
        let isOver: Bool

        /// `declared`: the game's declarations read before (`declarations(of:)`) while its rules are the same.
        init(_ game: Game, declared: Declared? = nil) {
            self.declared = declared ?? Self.declarations(of: game)
            current = game.currentPlayer
            isOver = game.isOver
        }

        /// How each action declares its arguments: read from the loaded rules (read-only
        /// once loaded), so the same until the rules are reloaded.
        static func declarations(of game: Game) -> Declared {
            game.rules.actions.map { action in (action, try? game.declaredArguments(of: action)) }
        }
    }

    /// `movesJSON(game, for: viewer)` with what every seat shares read once (`context`, of this moment).
    static func movesJSON(_ game: Game, for viewer: String?, _ context: MovesContext) -> String? {
        guard let viewer, game.playerNames.contains(viewer) else { return nil }
        let current = context.current
        // What each action may list; the functions of the position run together after.
        var listed: [(action: String, lists: [[LuaValue]]?)] = []
        var positional: [String] = []
        let viewerIsOut = game.isOut(viewer)
        for (action, declaredArguments) in context.declared {
            guard let declared = declaredArguments else { continue }
            let mayMove = !context.isOver
                && (game.rules.anytime.contains(action) || current == nil || current == viewer)
                && (game.rules.whileOut.contains(action) || !viewerIsOut)
            switch declared {
            case .notListed: continue
            case .lists(let fixed): listed.append((action, mayMove ? fixed : []))
            case .perPosition:
                listed.append((action, mayMove ? nil : []))
                if mayMove { positional.append(action) }
            }
        }
        // One look at the game for all of them (`Game.legalArguments(of:by:)`: each still
        // under its own budget); an action whose list fails is left out.
        var found: [String: [[LuaValue]]] = [:]
        if !positional.isEmpty {
            let results = (try? game.legalArguments(of: positional, by: viewer)) ?? []
            for (action, result) in zip(positional, results) {
                if case .success(let lists) = result { found[action] = lists }
            }
        }
        var out = "{"
        var first = true
        for (action, fixed) in listed {
            guard let lists = fixed ?? found[action] else { continue }
            if !first { out += "," }
            first = false
            out += GameEvent.quote(action)
            out += ":["
            out.reserveCapacity(out.utf8.count + 8 * lists.count)
            var firstMove = true
            for arguments in lists {
                // Written in place; a move a client could not send back is cut off again.
                let before = out.endIndex
                if !firstMove { out += "," }
                if appendArgumentList(arguments, to: &out) { firstMove = false } else { out.removeSubrange(before...) }
            }
            out += "]"
        }
        return out + "}"
    }

    /// One move's arguments as a JSON list, or nil when a client could not send them back
    /// (a number JSON cannot hold, a string that is no one word of at most 256 bytes).
    static func argumentListJSON(_ arguments: [LuaValue]) -> String? {
        var out = ""
        return appendArgumentList(arguments, to: &out) ? out : nil
    }

    /// Appends `argumentListJSON(arguments)` to `out`; false (with `out` part written)
    /// when there is none.
    static func appendArgumentList(_ arguments: [LuaValue], to out: inout String) -> Bool {
        out += "["
        for (index, argument) in arguments.enumerated() {
            if index > 0 { out += "," }
            switch argument {
            case .integer(let n): out += String(n)
            case .number(let d) where d.isFinite: out += String(d)
            case .boolean(let b): out += b ? "true" : "false"
            case .string(let text) where (1...ServerProtocol.maxArgumentBytes).contains(text.utf8.count)
                && !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }):
                out += GameEvent.quote(text)
            default: return false
            }
        }
        out += "]"
        return true
    }
}

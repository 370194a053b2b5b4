import DiceHost
import Foundation

/// A room's state as each client is sent it: the parts every seat shares, made once per
/// broadcast, around what only one seat may see (SeatView).
extension Room {
    /// What a client draws: the phase, players, whose turn, dice and LEDs, timers, and
    /// the rules' view for `viewer` (a seat's player; nil: a spectator). In a game with a
    /// view, nothing else read from the game's tables is sent (SeatView).
    func stateJSON(for viewer: String? = nil) -> String {
        var parts = stateParts()
        return stateJSON(for: viewer, &parts)
    }

    /// The state of one moment in pieces, so a broadcast makes what every seat shares once.
    struct StateParts {
        /// Everything before the seat's own fields (before the game starts: the whole state).
        var head: String
        /// Everything after them (nil before the game starts: there are none).
        var tail: String?
        /// The views written so far for this moment: seats whose views are equal share one text.
        var views = SeatView.WrittenViews()
        /// Views and tables made ahead for the seats a broadcast goes to (`prepareLooks`).
        var looks: [String?: (view: String, table: String?)] = [:]
        /// What the seats' moves share (read once per moment; nil before the game starts).
        var moves: SeatView.MovesContext?
    }

    /// Makes the views and tables of `viewers` in one go: a view that is the same for
    /// every seat is made once (`Game.viewsAndTables`).
    func prepareLooks(for viewers: [String?], _ parts: inout StateParts) {
        guard let game, parts.tail != nil, viewers.count > 1 else { return }
        parts.looks = SeatView.viewsAndTablesJSON(game, for: viewers, written: &parts.views)
    }

    /// `viewer`'s state: the shared parts around the fields only that seat may see.
    func stateJSON(for viewer: String?, _ parts: inout StateParts) -> String {
        guard let game, let tail = parts.tail else { return parts.head }
        var out = parts.head
        if let lastRoll = SeatView.lastRollJSON(game, for: viewer) { out += "\"lastRoll\":\(lastRoll)," }
        let (view, table) = parts.looks[viewer] ?? SeatView.viewAndTableJSON(game, for: viewer, written: &parts.views)
        out += "\"view\":\(view),\"viewer\":\(viewer.map(\.jsonQuoted) ?? "null"),"
        let context = parts.moves ?? SeatView.MovesContext(game)
        parts.moves = context
        if let moves = SeatView.movesJSON(game, for: viewer, context) { out += "\"moves\":\(moves)," }
        if let table { out += "\"table\":\(table)," }
        return out + tail
    }

    /// Two lowercase hex digits of a colour channel clamped to 0...255 (what `%02x` wrote,
    /// without `String(format:)`'s variadic arguments on every broadcast).
    static func hexByte(_ value: Int) -> String {
        let byte = min(max(value, 0), 255)
        return String(hexDigits[byte >> 4]) + String(hexDigits[byte & 0x0F])
    }
    private static let hexDigits = Array("0123456789abcdef")

    /// The parts of the state that are the same for every seat and spectator.
    func stateParts() -> StateParts {
        let rules = game?.rules ?? entry.rules
        var out = "{\"rules\":{\"file\":\(entry.file.jsonQuoted),\"name\":\(rules.name.jsonQuoted),\"dice\":\(rules.dice.text.jsonQuoted),"
            + "\"hasDice\":\(rules.hasDice),\"choices\":\(SeatView.choicesJSON(rules)),"
            + "\"minPlayers\":\(rules.minPlayers),\"maxPlayers\":\(rules.maxPlayers),"
            + "\"actions\":[\(rules.actions.map(\.jsonQuoted).joined(separator: ","))]},\"seats\":\(seatCount),"
            + "\"deviceRolls\":\(deviceRolls),\"spectators\":\(subscribers.values.filter { $0.seat == nil }.count),"
        guard let game, let session else {
            let players = seats.enumerated().map { index, seat in
                "{\"name\":\(seat.name.jsonQuoted),\"seat\":\(index + 1),\"connected\":\(seat.connections > 0)}"
            }
            return StateParts(head: out + "\"phase\":\"waiting\",\"players\":[\(players.joined(separator: ","))]}", tail: nil)
        }
        // The designer's `state` lines show every table: only for games without a view.
        let lines = game.hasView ? [] : session.describeState()
        let current = game.currentPlayer
        let players = seats.enumerated().map { index, seat -> String in
            var fields = "{\"name\":\(seat.name.jsonQuoted),\"seat\":\(index + 1),\"connected\":\(seat.connections > 0),"
                + "\"current\":\(seat.name == current && !game.isOver)"
            if let table = game.player(seat.name).tableRef {
                fields += ",\"out\":\(game.lua.get(table, "eliminated").isTruthy)"
                switch game.hasView ? .nil : game.lua.get(table, "score") {
                case .integer(let n): fields += ",\"score\":\(n)"
                case .number(let d) where d.isFinite: fields += ",\"score\":\(d)"
                default: break
                }
            }
            let prefix = seat.name + ": "
            if lines.indices.contains(index + 1), lines[index + 1].hasPrefix(prefix) {
                fields += ",\"summary\":\(String(lines[index + 1].dropFirst(prefix.count)).jsonQuoted)"
            }
            return fields + "}"
        }
        let phase = game.isOver ? "over" : "playing"
        out += "\"phase\":\"\(phase)\",\"players\":[\(players.joined(separator: ","))],\"current\":\((current.map(\.jsonQuoted)) ?? "null"),"
        out += "\"now\":\(game.now),\"clock\":\(clockNow),\"nextTimer\":\(game.nextTimerDue.map(String.init) ?? "null"),"
        let leds = game.led.colors(at: game.now).map { "\"#" + Self.hexByte($0.red) + Self.hexByte($0.green) + Self.hexByte($0.blue) + "\"" }
        out += "\"leds\":[\(leds.joined(separator: ","))],"
        var tail = ""
        switch game.outcome {
        case .win(let p)?: tail += "\"outcome\":\("\(p) won".jsonQuoted),"
        case .draw?: tail += "\"outcome\":\"a draw\","
        case .loss(let p)?: tail += "\"outcome\":\("\(p) lost".jsonQuoted),"
        case nil: break
        }
        if let status = game.statusLine() { tail += "\"status\":\(status.jsonQuoted)," }
        if !lines.isEmpty { tail += "\"summary\":\((lines.first ?? "").jsonQuoted)," }
        tail += "\"eventCount\":\(game.forgottenEvents + game.events.count)}"
        return StateParts(head: out, tail: tail)
    }
}

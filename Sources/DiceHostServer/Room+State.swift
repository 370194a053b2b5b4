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

    /// How the game's actions declare their arguments, read once per loaded rules (`declaredMovesCache`).
    func declaredMoves(_ game: Game) -> SeatView.MovesContext.Declared {
        if let cached = declaredMovesCache, cached.game === game { return cached.declared }
        let declared = SeatView.MovesContext.declarations(of: game)
        declaredMovesCache = (game, declared)
        return declared
    }

    /// `viewer`'s state: the shared parts around the fields only that seat may see.
    func stateJSON(for viewer: String?, _ parts: inout StateParts) -> String {
        guard let game, let tail = parts.tail else { return parts.head }
        let lastRoll = SeatView.lastRollJSON(game, for: viewer)
        let (view, table) = parts.looks[viewer] ?? SeatView.viewAndTableJSON(game, for: viewer, written: &parts.views)
        let context = parts.moves ?? SeatView.MovesContext(game, declared: declaredMoves(game))
        parts.moves = context
        let moves = SeatView.movesJSON(game, for: viewer, context)
        // One text of the right size, appended to (it grew, and was copied, piece by piece).
        var out = ""
        out.reserveCapacity(parts.head.utf8.count + (lastRoll?.utf8.count ?? 0) + view.utf8.count + (moves?.utf8.count ?? 0)
                            + (table?.utf8.count ?? 0) + tail.utf8.count + (viewer?.utf8.count ?? 0) + 64)
        out += parts.head
        if let lastRoll { out += "\"lastRoll\":"; out += lastRoll; out += "," }
        out += "\"view\":"
        out += view
        out += ",\"viewer\":"
        out += viewer.map(\.jsonQuoted) ?? "null"
        out += ","
        if let moves { out += "\"moves\":"; out += moves; out += "," }
        if let table { out += "\"table\":"; out += table; out += "," }
        out += tail
        return out
    }

    /// `"#rrggbb"` (quoted) of a colour, each channel clamped to 0...255 as two lowercase
    /// hex digits (what `%02x` wrote), appended to `out` without a string per digit.
    static func appendHexColor(red: Int, green: Int, blue: Int, to out: inout StateText) {
        out.raw("\"#")
        for value in [red, green, blue] {
            let byte = min(max(value, 0), 255)
            out.bytes.append(hexDigits[byte >> 4])
            out.bytes.append(hexDigits[byte & 0x0F])
        }
        out.raw("\"")
    }
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A seat's entry in the state's `players`, open: its name, number and whether a
    /// client is connected to it, whether its player left, the bot plays it (`playing`: a
    /// game is under way) or its player is ready for another game (the game's fields
    /// follow while one is played).
    static func appendSeatFields(_ seat: Seat, at index: Int, playing: Bool = false, to out: inout StateText) {
        out.raw("{\"name\":")
        out.text(seat.name.jsonQuoted)
        out.raw(",\"seat\":")
        out.text(String(index + 1))
        out.raw(",\"connected\":")
        out.text(seat.connections > 0 ? "true" : "false")
        if seat.left { out.raw(",\"left\":true") }
        if playing, seat.botPlays { out.raw(",\"botPlaying\":true") }
        if seat.ready { out.raw(",\"ready\":true") }
    }

    /// The parts of the state that are the same for every seat and spectator. Written
    /// by appending to one text (chains of `+` and interpolations made a string each).
    func stateParts() -> StateParts {
        let rules = game?.rules ?? entry.rules
        var out = StateText(capacity: 1024)
        out.raw("{\"rules\":{\"file\":")
        out.text(entry.file.jsonQuoted)
        out.raw(",\"name\":")
        out.text(rules.name.jsonQuoted)
        out.raw(",\"dice\":")
        out.text(rules.dice.text.jsonQuoted)
        out.raw(",\"hasDice\":")
        out.text(rules.hasDice ? "true" : "false")
        out.raw(",\"choices\":")
        out.text(SeatView.choicesJSON(rules))
        out.raw(",\"minPlayers\":")
        out.text(String(rules.minPlayers))
        out.raw(",\"maxPlayers\":")
        out.text(String(rules.maxPlayers))
        out.raw(",\"actions\":[")
        for (index, action) in rules.actions.enumerated() {
            if index > 0 { out.raw(",") }
            out.text(action.jsonQuoted)
        }
        out.raw("]},\"seats\":")
        out.text(String(seatCount))
        out.raw(",\"deviceRolls\":")
        out.text(deviceRolls ? "true" : "false")
        out.raw(",\"spectators\":")
        out.text(String(subscribers.values.reduce(0) { $0 + ($1.seat == nil ? 1 : 0) }))
        out.raw(",")
        guard let game, let session else {
            out.raw("\"phase\":\"waiting\",\"players\":[")
            for (index, seat) in seats.enumerated() {
                if index > 0 { out.raw(",") }
                Self.appendSeatFields(seat, at: index, to: &out)
                out.raw("}")
            }
            out.raw("]}")
            return StateParts(head: out.string, tail: nil)
        }
        // The designer's `state` lines show every table: only for games without a view.
        let lines = game.hasView ? [] : session.describeState()
        let isOver = game.isOver || abandoned
        let current = abandoned ? nil : game.currentPlayer
        out.raw("\"phase\":")
        out.text(isOver ? "\"over\"" : "\"playing\"")
        out.raw(",\"players\":[")
        for (index, seat) in seats.enumerated() {
            if index > 0 { out.raw(",") }
            Self.appendSeatFields(seat, at: index, playing: !isOver, to: &out)
            out.raw(",\"current\":")
            out.text(seat.name == current && !isOver ? "true" : "false")
            if let table = game.player(seat.name).tableRef {
                out.raw(",\"out\":")
                out.text(game.lua.get(table, "eliminated").isTruthy ? "true" : "false")
                switch game.hasView ? .nil : game.lua.get(table, "score") {
                case .integer(let n): out.raw(",\"score\":"); out.text(String(n))
                case .number(let d) where d.isFinite: out.raw(",\"score\":"); out.text("\(d)")
                default: break
                }
            }
            let prefix = seat.name + ": "
            if lines.indices.contains(index + 1), lines[index + 1].hasPrefix(prefix) {
                out.raw(",\"summary\":")
                out.text(String(lines[index + 1].dropFirst(prefix.count)).jsonQuoted)
            }
            out.raw("}")
        }
        out.raw("],\"current\":")
        out.text(current.map(\.jsonQuoted) ?? "null")
        out.raw(",\"now\":")
        out.text(String(game.now))
        out.raw(",\"clock\":")
        out.text(String(clockNow))
        out.raw(",\"nextTimer\":")
        out.text(game.nextTimerDue.map(String.init) ?? "null")
        out.raw(",\"leds\":[")
        for (index, color) in game.led.colors(at: game.now).enumerated() {
            if index > 0 { out.raw(",") }
            Self.appendHexColor(red: color.red, green: color.green, blue: color.blue, to: &out)
        }
        out.raw("],")
        var tail = ""
        if let clock = turnClock {
            tail += "\"turnClock\":{\"player\":"
            tail += clock.player.map(\.jsonQuoted) ?? "null"
            tail += ",\"deadline\":"
            tail += String(clock.deadline)
            tail += ",\"seconds\":"
            tail += String(turnSeconds)
            tail += "},"
        }
        if canAbandon { tail += "\"canAbandon\":true," }
        if abandoned { tail += "\"outcome\":\"abandoned\"," }
        switch abandoned ? nil : game.outcome {
        case .win(let p)?: tail += "\"outcome\":\("\(p) won".jsonQuoted),"
        case .draw?: tail += "\"outcome\":\"a draw\","
        case .loss(let p)?: tail += "\"outcome\":\("\(p) lost".jsonQuoted),"
        case nil: break
        }
        if let status = game.statusLine() { tail += "\"status\":\(status.jsonQuoted)," }
        if !lines.isEmpty { tail += "\"summary\":\((lines.first ?? "").jsonQuoted)," }
        tail += "\"eventCount\":"
        tail += String(game.forgottenEvents + game.events.count)
        tail += "}"
        return StateParts(head: out.string, tail: tail)
    }
}

/// A room's state text written as bytes and made a `String` once (an append to a
/// `String` cost ~300 instructions, most of a broadcast's shared state; to bytes, a few dozen).
struct StateText {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// A piece of JSON written in the source (a key, punctuation).
    mutating func raw(_ text: StaticString) { text.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    /// A piece of JSON made at run time (a quoted string, a number).
    mutating func text(_ text: String) { bytes.append(contentsOf: text.utf8) }

    var string: String { String(decoding: bytes, as: UTF8.self) }
}

import Lua

/// Checks what a `table(v, t)` hook returned against the table's vocabulary and turns it
/// into JSON a front end draws (docs/scripting.md, "The table"):
///
///     headline  "Cal bid four 3s - your move"        last   "Bob called liar: ..."
///     result    "You finish $20 down" (the game's end in this seat's words)
///     roll      "Roll your cup" (the Roll button's label), or false: no roll is taken now
///     turn      "Your turn"                          countdown {text = "Bob flips for you", ms = 4000}
///     track     {target = 25, label = "Race to space", marks = {{name = "Ann", at = 12}, ...}}
///     pot       "$15" (or {label = "Ante", value = "$5"})
///     balances  {{name = "Ann", value = "$205", note = "ante $5"}, ...}
///     cups      {{name = "Ann", dice = a roll | hidden("dice", 5) | {3, 5}, note = ...}, ...}
///     cards     {{name = "Ann", open = a card | {cards}, facedown = 12 | hidden("cards", 12)}, ...}
///
/// Anything else is an error naming the field and what was expected; no script code runs
/// (raw reads only) and sizes are capped: texts are cut at `charactersPerText`, lists
/// hold at most `rowsPerList` rows, `itemsPerRow` dice or cards.
struct TableEncoder {
    static let charactersPerText = 300
    static let rowsPerList = 16
    static let itemsPerRow = 60
    static let fields = ["headline", "result", "last", "turn", "roll", "countdown", "track", "pot", "balances", "cups", "cards"]

    let lua: LuaState
    let location: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func fail(_ path: String, _ expected: String, _ got: LuaValue) -> Failure {
        Failure(description: "\(location): table(v, t) returned \(path) = \(got.typeName): \(expected) expected")
    }

    mutating func encode(_ value: LuaValue) throws -> JSONValue {
        guard case .table(let t) = value else { throw fail("a value", "a table (headline, turn, ...)", value) }
        let entries = try boundedEntries(t, path: "the table", limit: Self.fields.count)
        var object: [String: JSONValue] = [:]
        for (key, v) in entries {
            guard case .string(let name) = key, Self.fields.contains(name) else {
                throw Failure(description: "\(location): table(v, t) returned an unknown field '\(key.description.prefix(40))' (the table knows \(Self.fields.joined(separator: ", ")))")
            }
            switch name {
            case "headline", "result", "last", "turn": object[name] = try text(v, name)
            case "roll": object[name] = try rollButton(v)
            case "countdown": object[name] = try countdown(v)
            case "track": object[name] = try track(v)
            case "pot": object[name] = try pot(v)
            case "balances": object[name] = try rows(v, name) { row, path in
                var out: [String: JSONValue] = ["name": try text(lua.get(row, "name"), path + ".name")]
                out["value"] = try amount(lua.get(row, "value"), path + ".value")
                if let note = try optionalText(lua.get(row, "note"), path + ".note") { out["note"] = note }
                return out
            }
            case "cups": object[name] = try rows(v, name) { row, path in
                var out: [String: JSONValue] = ["name": try text(lua.get(row, "name"), path + ".name")]
                out["dice"] = try dice(lua.get(row, "dice"), path + ".dice")
                if let note = try optionalText(lua.get(row, "note"), path + ".note") { out["note"] = note }
                return out
            }
            default: object[name] = try rows(v, name) { row, path in
                var out: [String: JSONValue] = ["name": try text(lua.get(row, "name"), path + ".name")]
                out["open"] = try openCards(lua.get(row, "open"), path + ".open")
                out["facedown"] = try faceDown(lua.get(row, "facedown"), path + ".facedown")
                if let note = try optionalText(lua.get(row, "note"), path + ".note") { out["note"] = note }
                return out
            }
            }
        }
        return .object(object)
    }

    /// The entries of a table the script made, refused past `limit` (read before any is
    /// looked at, so a table of a million keys costs one bounded pass).
    private func boundedEntries(_ t: LuaRef, path: String, limit: Int) throws -> [(key: LuaValue, value: LuaValue)] {
        let entries = lua.entries(t)
        try lua.charge(entries.count)
        guard entries.count <= limit else {
            throw Failure(description: "\(location): table(v, t) returned \(path) with \(entries.count) entries: at most \(limit) expected")
        }
        return entries
    }

    private func text(_ value: LuaValue, _ path: String) throws -> JSONValue {
        switch value {
        // No more bytes than the limit means no more characters: counting them is skipped.
        case .string(let s): return .string(s.utf8.count <= Self.charactersPerText || s.count <= Self.charactersPerText ? s : s.prefix(Self.charactersPerText) + "…")
        case .integer, .number: return .string(value.description)
        default: throw fail(path, "a string", value)
        }
    }

    private func optionalText(_ value: LuaValue, _ path: String) throws -> JSONValue? {
        value.isNil ? nil : try text(value, path)
    }

    /// A number drawn as a number, or a text ("$205", "3 lives").
    private func amount(_ value: LuaValue, _ path: String) throws -> JSONValue {
        switch value {
        case .integer(let n): return .integer(n)
        case .number(let d) where d.isFinite: return .number(d)
        case .string: return try text(value, path)
        default: throw fail(path, "a number or a string", value)
        }
    }

    /// The Roll button: its label, true (the page's own), or false (no roll is taken now).
    private func rollButton(_ value: LuaValue) throws -> JSONValue {
        switch value {
        case .boolean(let b): return .bool(b)
        case .string: return try text(value, "roll")
        default: throw fail("roll", "a label or false", value)
        }
    }

    private func countdown(_ value: LuaValue) throws -> JSONValue {
        guard case .table(let t) = value else { throw fail("countdown", "{text = ..., ms = ...}", value) }
        let ms = lua.get(t, "ms")
        guard let left = ms.intValue, left >= 0, left <= HostLimits.maximumTime else {
            throw fail("countdown.ms", "the milliseconds left (0 or more, e.g. handle:left())", ms)
        }
        return .object(["text": try text(lua.get(t, "text"), "countdown.text"), "ms": .integer(Int64(left))])
    }

    private func track(_ value: LuaValue) throws -> JSONValue {
        guard case .table(let t) = value else { throw fail("track", "{target = ..., marks = {...}}", value) }
        let target = lua.get(t, "target")
        guard case .integer(let goal) = target, goal > 0 else { throw fail("track.target", "a whole number above 0", target) }
        var out: [String: JSONValue] = ["target": .integer(goal)]
        if let label = try optionalText(lua.get(t, "label"), "track.label") { out["label"] = label }
        out["marks"] = try rows(lua.get(t, "marks"), "track.marks") { row, path in
            let at = lua.get(row, "at")
            guard case .integer(let position) = at else { throw fail(path + ".at", "a whole number", at) }
            return ["name": try text(lua.get(row, "name"), path + ".name"), "at": .integer(position)]
        }
        return .object(out)
    }

    private func pot(_ value: LuaValue) throws -> JSONValue {
        if case .table(let t) = value {
            return .object(["label": try optionalText(lua.get(t, "label"), "pot.label") ?? .string("Pot"),
                            "value": try amount(lua.get(t, "value"), "pot.value")])
        }
        return .object(["label": .string("Pot"), "value": try amount(value, "pot")])
    }

    /// A list of rows (tables), each made by `row`.
    private func rows(_ value: LuaValue, _ path: String, _ row: (LuaRef, String) throws -> [String: JSONValue]) throws -> JSONValue {
        guard case .table(let t) = value else { throw fail(path, "a list of tables", value) }
        let entries = try boundedEntries(t, path: path, limit: Self.rowsPerList)
        guard lua.length(t) == entries.count else { throw fail(path, "a list (keys 1 to n)", value) }
        return .array(try (0..<entries.count).map { i in
            let item = lua.get(t, .integer(Int64(i + 1)))
            let itemPath = "\(path)[\(i + 1)]"
            guard case .table(let r) = item else { throw fail(itemPath, "a table", item) }
            return .object(try row(r, itemPath))
        })
    }

    /// Dice as values, or hidden: a roll, `hidden("dice", n)`, or a list of die values.
    private func dice(_ value: LuaValue, _ path: String) throws -> JSONValue {
        guard case .table(let t) = value else { throw fail(path, "a roll, hidden(\"dice\", n) or a list of die values", value) }
        if lua.get(t, "hidden") == .boolean(true) { return try hiddenCount(t, path) }
        var list = t
        if case .table(let values) = lua.get(t, "values") { list = values }
        let entries = try boundedEntries(list, path: path, limit: Self.itemsPerRow)
        guard lua.length(list) == entries.count else { throw fail(path, "a list of die values", value) }
        return .object(["values": .array(try (0..<entries.count).map { i in
            let v = lua.get(list, .integer(Int64(i + 1)))
            guard case .integer(let n) = v, (1...1_000_000).contains(n) else { throw fail("\(path)[\(i + 1)]", "a die value (1 or more)", v) }
            return .integer(n)
        })])
    }

    private func hiddenCount(_ t: LuaRef, _ path: String) throws -> JSONValue {
        let count = lua.get(t, "count")
        guard case .integer(let n) = count, (0...Int64(Self.itemsPerRow * 100)).contains(n) else {
            throw fail(path + ".count", "a count from 0", count)
        }
        return .object(["hidden": .integer(n)])
    }

    /// Open cards: none (nil), one card, or a list of cards.
    private func openCards(_ value: LuaValue, _ path: String) throws -> JSONValue {
        guard case .table(let t) = value else {
            if value.isNil { return .array([]) }
            throw fail(path, "a card or a list of cards", value)
        }
        if lua.get(t, "rank") != .nil { return .array([try card(t, path)]) }
        let entries = try boundedEntries(t, path: path, limit: Self.itemsPerRow)
        guard lua.length(t) == entries.count else { throw fail(path, "a list of cards", value) }
        return .array(try (0..<entries.count).map { i in
            let item = lua.get(t, .integer(Int64(i + 1)))
            guard case .table(let c) = item else { throw fail("\(path)[\(i + 1)]", "a card", item) }
            return try card(c, "\(path)[\(i + 1)]")
        })
    }

    private func card(_ t: LuaRef, _ path: String) throws -> JSONValue {
        let names = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
        let rank = lua.get(t, "rank"), suit = lua.get(t, "suit")
        guard case .integer(let r) = rank, (1...13).contains(r), case .string(let s) = suit, !s.isEmpty else {
            throw fail(path, "a card (cards.deck()'s, with rank 1-13 and suit)", .table(t))
        }
        let suitText = String(s.prefix(8))
        return .object(["rank": .integer(r), "suit": .string(suitText), "text": .string(names[Int(r) - 1] + suitText)])
    }

    /// A face-down stack: a count or `hidden("cards", n)`; none is 0.
    private func faceDown(_ value: LuaValue, _ path: String) throws -> JSONValue {
        switch value {
        case .nil: return .integer(0)
        case .integer(let n) where (0...Int64(Self.itemsPerRow * 100)).contains(n): return .integer(n)
        case .table(let t) where lua.get(t, "hidden") == .boolean(true):
            guard case .object(let o) = try hiddenCount(t, path), let n = o["hidden"] else { return .integer(0) }
            return n
        default: throw fail(path, "a count of cards or hidden(\"cards\", n)", value)
        }
    }
}

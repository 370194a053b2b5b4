import Lua

/// The table's parts that hold more than a text (TableEncoder.swift reads the fields and
/// the texts): the Roll button, the countdown, the track, the pot, rows of balances, cups
/// of dice and hands of cards, each checked against what docs/scripting.md ("The table")
/// allows and written as the page draws it.
extension TableEncoder {
    /// The Roll button: its label, true (the page's own), or false (no roll is taken now).
    func rollButton<Output: JSONOutput>(_ value: LuaSlot, _ out: inout Output) throws {
        if let b = value.boolean { return out.bool(b) }
        guard value.isString else { throw fail("roll", "a label or false", value) }
        try text(value, "roll").write(&out)
    }

    func countdown<Output: JSONOutput>(_ value: LuaSlot, _ reader: LuaStackReader, _ out: inout Output) throws {
        guard value.isTable else { throw fail("countdown", "{text = ..., ms = ...}", value) }
        let ms = reader.field(value, "ms")
        guard let left = ms.intValue, left >= 0, left <= HostLimits.maximumTime else {
            throw fail("countdown.ms", "the milliseconds left (0 or more, e.g. handle:left())", ms)
        }
        let label = try text(reader.field(value, "text"), "countdown.text")
        out.beginObject()
        out.key("ms"); out.integer(Int64(left))
        out.key("text"); label.write(&out)
        out.endObject()
    }

    func track<Output: JSONOutput>(_ value: LuaSlot, _ reader: LuaStackReader, _ out: inout Output) throws {
        guard value.isTable else { throw fail("track", "{target = ..., marks = {...}}", value) }
        let target = reader.field(value, "target")
        guard let goal = target.integer, goal > 0 else { throw fail("track.target", "a whole number above 0", target) }
        let label = try optionalText(reader.field(value, "label"), "track.label")
        out.beginObject()
        if let label { out.key("label"); label.write(&out) }
        out.key("marks")
        try rows(reader.field(value, "marks"), "track.marks", reader, &out) { row, path, out in
            let at = reader.field(row, "at")
            guard let position = at.integer else { throw fail(path.field("at").description, "a whole number", at) }
            let name = try text(reader.field(row, "name"), path.field("name"))
            out.key("at"); out.integer(position)
            out.key("name"); name.write(&out)
        }
        out.key("target"); out.integer(goal)
        out.endObject()
    }

    func pot<Output: JSONOutput>(_ value: LuaSlot, _ reader: LuaStackReader, _ out: inout Output) throws {
        let label: Text, amount: Amount
        if value.isTable {
            label = try optionalText(reader.field(value, "label"), "pot.label") ?? .string("Pot")
            amount = try self.amount(reader.field(value, "value"), "pot.value")
        } else {
            label = .string("Pot")
            amount = try self.amount(value, "pot")
        }
        out.beginObject()
        out.key("label"); label.write(&out)
        out.key("value"); amount.write(&out)
        out.endObject()
    }

    /// A list of rows (tables), each an object whose fields `row` writes (what it reads
    /// stays on the stack until the row is written).
    func rows<Output: JSONOutput>(_ value: LuaSlot, _ list: String, _ reader: LuaStackReader, _ out: inout Output,
                                          _ row: (LuaSlot, Path, inout Output) throws -> Void) throws {
        guard value.isTable else { throw fail(list, "a list of tables", value) }
        let count = try boundedCount(value, reader, path: list, limit: Self.rowsPerList)
        guard reader.length(value) == count else { throw fail(list, "a list (keys 1 to n)", value) }
        out.beginArray()
        for i in 0..<count {
            try reader.restoring {
                let item = reader.element(value, Int64(i + 1))
                let path = Path(list: list, row: i + 1)
                guard item.isTable else { throw fail(path.description, "a table", item) }
                out.beginObject()
                try row(item, path, &out)
                out.endObject()
            }
        }
        out.endArray()
    }

    /// Dice as values, or hidden: a roll, `hidden("dice", n)`, or a list of die values.
    func dice<Output: JSONOutput>(_ value: LuaSlot, _ path: Path, _ reader: LuaStackReader, _ out: inout Output) throws {
        guard value.isTable else { throw fail(path.description, "a roll, hidden(\"dice\", n) or a list of die values", value) }
        if reader.field(value, "hidden").isTrue {
            let n = try hiddenCount(value, path, reader)
            out.beginObject(); out.key("hidden"); out.integer(n); out.endObject()
            return
        }
        var list = value
        let values = reader.field(value, "values")
        if values.isTable { list = values }
        let count = try boundedCount(list, reader, path: path.description, limit: Self.itemsPerRow)
        guard reader.length(list) == count else { throw fail(path.description, "a list of die values", value) }
        out.beginObject()
        out.key("values")
        out.beginArray()
        for i in 0..<count {
            try reader.restoring {
                let v = reader.element(list, Int64(i + 1))
                guard let n = v.integer, (1...1_000_000).contains(n) else { throw fail("\(path)[\(i + 1)]", "a die value (1 or more)", v) }
                out.integer(n)
            }
        }
        out.endArray()
        out.endObject()
    }

    /// A cup's `counted` or `wild`: the faces to light up at a reveal (the dice that
    /// counted for the bid, and those that counted as wild), a list of die values.
    func faces(_ value: LuaSlot, _ path: Path, _ reader: LuaStackReader) throws -> [Int64]? {
        if value.isNil { return nil }
        guard value.isTable else { throw fail(path.description, "a list of die faces", value) }
        let count = try boundedCount(value, reader, path: path.description, limit: Self.itemsPerRow)
        guard reader.length(value) == count else { throw fail(path.description, "a list of die faces", value) }
        var list: [Int64] = []
        for i in 0..<count {
            try reader.restoring {
                let v = reader.element(value, Int64(i + 1))
                guard let n = v.integer, (1...1_000_000).contains(n) else { throw fail("\(path)[\(i + 1)]", "a die face (1 or more)", v) }
                list.append(n)
            }
        }
        return list
    }

    func writeFaces<Output: JSONOutput>(_ faces: [Int64], _ out: inout Output) {
        out.beginArray()
        for face in faces { out.integer(face) }
        out.endArray()
    }

    func hiddenCount(_ t: LuaSlot, _ path: Path, _ reader: LuaStackReader) throws -> Int64 {
        let count = reader.field(t, "count")
        guard let n = count.integer, (0...Int64(Self.itemsPerRow * 100)).contains(n) else {
            throw fail(path.description + ".count", "a count from 0", count)
        }
        return n
    }

    /// Open cards: none (nil), one card, or a list of cards.
    func openCards(_ value: LuaSlot, _ path: Path, _ reader: LuaStackReader) throws -> [Card] {
        guard value.isTable else {
            if value.isNil { return [] }
            throw fail(path.description, "a card or a list of cards", value)
        }
        if !reader.restoring({ reader.field(value, "rank").isNil }) { return [try card(value, path.description, reader)] }
        let count = try boundedCount(value, reader, path: path.description, limit: Self.itemsPerRow)
        guard reader.length(value) == count else { throw fail(path.description, "a list of cards", value) }
        var cards: [Card] = []
        cards.reserveCapacity(count)
        for i in 0..<count {
            try reader.restoring {
                let item = reader.element(value, Int64(i + 1))
                guard item.isTable else { throw fail("\(path)[\(i + 1)]", "a card", item) }
                cards.append(try card(item, "\(path)[\(i + 1)]", reader))
            }
        }
        return cards
    }

    func card(_ t: LuaSlot, _ path: @autoclosure () -> String, _ reader: LuaStackReader) throws -> Card {
        try reader.restoring {
            let rank = reader.field(t, "rank"), suit = reader.field(t, "suit")
            guard let r = rank.integer, (1...13).contains(r), let s = suit.stringBytes, !s.isEmpty else {
                throw fail(path(), "a card (cards.deck()'s, with rank 1-13 and suit)", t)
            }
            return Card(rank: r, suit: String(String(decoding: s, as: UTF8.self).prefix(8)))
        }
    }

    /// A face-down stack: a count or `hidden("cards", n)`; none is 0.
    func faceDown(_ value: LuaSlot, _ path: Path, _ reader: LuaStackReader) throws -> Int64 {
        if value.isNil { return 0 }
        if let n = value.integer, (0...Int64(Self.itemsPerRow * 100)).contains(n) { return n }
        if value.isTable, reader.field(value, "hidden").isTrue { return try hiddenCount(value, path, reader) }
        throw fail(path.description, "a count of cards or hidden(\"cards\", n)", value)
    }
}

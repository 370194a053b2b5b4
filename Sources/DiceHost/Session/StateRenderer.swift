import Lua

/// Renders Lua values for the REPL's `state` command: `{score=3, hand={A♠, 10♥}}`.
///
/// A script controls what it renders (a table of a million entries, a string of
/// megabytes, a fake roll whose `__tostring` never returns), so the cost and the size
/// of the output are bounded: at most `entriesPerTable` entries of a table are shown
/// (then `… 123 more`), strings are cut, a line stops at `charactersPerLine`, nesting
/// stops at `maximumDepth`, and all tables rendered by one command together may have at
/// most `scannedEntries` entries looked at. No script code runs: rolls and cards are
/// printed from their fields, not by their `__tostring`.
struct StateRenderer {
    static let entriesPerTable = 20
    static let charactersPerLine = 2_000
    static let charactersPerString = 200
    static let maximumDepth = 4
    static let scannedEntries = 1_000_000

    let lua: LuaState
    /// Which keys a table shows: its `entriesPerTable` first keys in `pairs` order and
    /// its entry count, found in one pass over the table (no sort of the whole table).
    private let firstKeys: LuaValue
    /// `raw_getmetatable`: a table's metatable past `__metatable`, to know timer handles.
    private let rawGetMetatable: LuaValue
    private var scanned = 0
    /// Characters of the line being rendered; past the limit, the rest is left out.
    private var written = 0

    init(lua: LuaState) {
        self.lua = lua
        // Made per command (a few microseconds) so no script can have replaced it.
        let chunk = try? lua.load(Self.firstKeysSource, chunkName: "dicehost-state")
        rawGetMetatable = lua.rawMetatableFunctions().get
        firstKeys = chunk.flatMap { try? lua.call(.function($0), [], budget: .some(10_000)).first } ?? .nil
    }

    /// One line: `prefix` then the value (strings at the top level unquoted).
    mutating func line(_ prefix: String, _ value: LuaValue, skip: Set<String> = []) -> String {
        written = prefix.count + 2
        return prefix + render(value, depth: 0, skip: skip)
    }

    /// The value's text; `written` grows by the characters it adds to the line.
    mutating func render(_ value: LuaValue, depth: Int, skip: Set<String> = []) -> String {
        guard case .table(let t) = value else {
            var text = value.description
            if case .string(let s) = value { text = depth == 0 ? Self.cut(s) : "\"\(Self.cut(s))\"" }
            written += text.count
            return text
        }
        if isTimerHandle(value) {
            written += 5
            return "timer"
        }
        if let text = rollText(t) ?? cardText(t) ?? hiddenText(t) {
            written += text.count
            return text
        }
        guard depth < Self.maximumDepth, written < Self.charactersPerLine, scanned < Self.scannedEntries else {
            written += 3
            return "{…}"
        }
        guard let (total, keys) = selectKeys(t) else {
            written += 3
            return "{…}"
        }
        scanned += total
        let shownKeys = keys.filter { if case .string(let k) = $0 { return !skip.contains(k) } else { return true } }
        let skipped = skip.filter { !lua.get(t, .string($0)).isNil }.count
        // A sequence shows as one: its first keys are 1, 2, … and it has no other keys.
        let isArray = shownKeys.enumerated().allSatisfy { $0.element == .integer(Int64($0.offset + 1)) }
            && total - skipped == max(lua.length(t), shownKeys.count)
        var items: [String] = []
        var timers = 0
        for key in shownKeys {
            guard written < Self.charactersPerLine else { break }
            let value = lua.get(t, key)
            if isTimerHandle(value) { timers += 1; continue }  // `pulse={id=13}` is the host's, not the game's
            let v = render(value, depth: depth + 1)
            let item: String
            if isArray {
                item = v
            } else if case .string(let k) = key {
                item = "\(Self.cut(k))=\(v)"
            } else {
                item = "[\(key)]=\(v)"
            }
            written += item.count - v.count + 2 // the key and ", "
            items.append(item)
        }
        let left = total - skipped - timers - items.count
        if left > 0 { items.append("… \(left) more") }
        return "{" + items.joined(separator: ", ") + "}"
    }

    /// A roll (a table with `values` and a `flag`) as the prelude prints it, "⚂ ⚄ = 8",
    /// made here from its fields.
    private func rollText(_ t: LuaRef) -> String? {
        guard case .table(let valuesTable) = lua.get(t, "values"), case .string(let flag) = lua.get(t, "flag") else { return nil }
        if lua.get(t, "ok") != .boolean(true) { return Self.cut(flag) }
        let count = lua.length(valuesTable)
        let faces = (0..<min(count, Self.entriesPerTable)).map { i -> String in
            let v = lua.get(valuesTable, .integer(Int64(i + 1)))
            return v.intValue.map(Roll.glyph) ?? "[\(Self.cut(v.description))]"
        }.joined(separator: " ") + (count > Self.entriesPerTable ? " …" : "")
        let total = lua.get(t, "total")
        if count == 1, total == lua.get(valuesTable, .integer(1)) { return faces }
        return "\(faces) = \(Self.cut(total.description))"
    }

    /// A handle from `timer.after` or `timer.every` (the runtime's `Timer` metatable,
    /// named "dicehost.timer"): its id means nothing to a designer, so `state` leaves it out.
    private func isTimerHandle(_ value: LuaValue) -> Bool {
        guard case .table(let t) = value, lua.get(t, "id").intValue != nil, case .function = rawGetMetatable,
              let metatable = (try? lua.call(rawGetMetatable, [value], budget: .some(1_000)))?.first?.tableRef else { return false }
        return lua.get(metatable, "__name") == .string("dicehost.timer")
    }

    /// A hidden thing of a view (`hidden("dice", 5)`): "(5 dice hidden)".
    private func hiddenText(_ t: LuaRef) -> String? {
        guard lua.get(t, "hidden") == .boolean(true), case .string(let what) = lua.get(t, "what"), let count = lua.get(t, "count").intValue else { return nil }
        return "(\(count) \(Self.cut(what)) hidden)"
    }

    /// A card (`rank` 1…13 and a `suit`) as the prelude prints it: "A♠", "10♥".
    private func cardText(_ t: LuaRef) -> String? {
        guard case .integer(let rank) = lua.get(t, "rank"), case .string(let suit) = lua.get(t, "suit") else { return nil }
        let names = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
        guard (1...13).contains(rank) else { return nil }
        return names[Int(rank) - 1] + Self.cut(suit)
    }

    /// The entry count and the first keys in `pairs` order, from a budgeted Lua call;
    /// nil when the table is too big to scan within the budget.
    private func selectKeys(_ t: LuaRef) -> (Int, [LuaValue])? {
        let budget = 20 * (Self.scannedEntries - scanned) + 10_000
        guard let results = try? lua.call(firstKeys, [.table(t), .integer(Int64(Self.entriesPerTable))], budget: .some(budget)),
              results.count == 2, let total = results[0].intValue, let keys = results[1].tableRef else { return nil }
        return (total, lua.array(keys))
    }

    static func cut(_ s: String) -> String {
        s.count <= charactersPerString ? s : s.prefix(charactersPerString) + "…"
    }

    /// Keeps the `limit` smallest keys in the order of the sandbox's `pairs` (numbers,
    /// then strings, then booleans) while counting all: mostly one comparison per key.
    /// The Lua source: `dicehost-state.lua` beside this file, compiled into the binary.
    static var firstKeysSource: String { String(decoding: PackageResources.dicehost_state_lua, as: UTF8.self) }
}

import Lua

/// What grows when an exploration stops at a limit: the fields of `g.state` and of the
/// player tables whose values keep changing across the positions found (a round number,
/// a roll counter), read off a sample of those positions in the order they were found.
/// A field that still takes values never seen before in the last fifth of them is the
/// likely cause; one that play never reads (a sampled check, as for a `statistics`
/// declaration) can be declared a statistic, which `solve` keeps out of positions.
public struct GrowingFields: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        /// Where it is: `g.state.rolls`, `g.state.cups[2]`, `g.players[1].score`.
        public var path: String
        /// The name a `statistics` declaration would give it (its field of `g.state` or
        /// of the player table).
        public var name: String
        /// Different values among the positions sampled.
        public var values: Int
        /// Of those, the values first seen in the last fifth of the sample.
        public var late: Int

        public init(path: String, name: String, values: Int, late: Int) {
            (self.path, self.name, self.values, self.late) = (path, name, values, late)
        }
    }

    /// The fields that still take new values, most first (or, when none does, the most
    /// varied: then `stillGrowing` is false), then any field play never reads.
    public var fields: [Field]
    public var stillGrowing: Bool
    /// Positions sampled, of the positions found.
    public var sampled: Int
    public var found: Int
    /// Top-level names among `fields` that play never read in the sampled games.
    public var unread: [String]
    /// Games played to check `unread` (0 when the check could not be made).
    public var checkedGames: Int

    public init(fields: [Field], stillGrowing: Bool, sampled: Int, found: Int, unread: [String], checkedGames: Int) {
        (self.fields, self.stillGrowing, self.sampled, self.found, self.unread, self.checkedGames)
            = (fields, stillGrowing, sampled, found, unread, checkedGames)
    }

    /// One paragraph for the message of a stop.
    public var text: String {
        guard !fields.isEmpty else { return "" }
        let list = fields.map { field in
            "\(field.path): \(Self.grouped(field.values)) values" + (stillGrowing && field.late > 0 ? " (\(Self.grouped(field.late)) new in the last fifth)" : "")
        }.joined(separator: ", ")
        var text = stillGrowing
            ? "what keeps growing, in \(Self.grouped(sampled)) of the \(Self.grouped(found)) positions found (in the order found): \(list)"
            : "the fields with the most values, in \(Self.grouped(sampled)) of the \(Self.grouped(found)) positions found: \(list)"
        if !unread.isEmpty {
            let names = unread.map { "\"\($0)\"" }.joined(separator: ", ")
            let named = unread.joined(separator: ", ")
            text += ". Play never reads \(named) in \(checkedGames) sampled games: if \(unread.count == 1 ? "it is" : "they are") "
                + "kept only to report on the game, declare statistics = {\(names)} in rules{...} and `dicehost solve` keeps "
                + "\(unread.count == 1 ? "it" : "them") out of positions (`odds` keeps every field, since its averages of g:record may read them)"
        }
        return text
    }

    /// 1214 → "1,214".
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }
}

extension StateExplorer {
    /// How many positions the look decodes, and how many fields it names.
    static let growthSample = 4_000
    static let growthFieldsShown = 4
    static let growthCandidatesChecked = 4

    /// The look after a stop: positions put back one by one (the live game is left in the
    /// last), then the sampled check of the fields that grow. Nil when nothing could be read.
    func growingFields() -> GrowingFields? {
        let lua = game.lua
        let wasObserved = watch.observed(lua: lua)
        defer {
            // Looking is not the rules looking into a last roll: the exploration's verdict stands.
            if !wasObserved { watch.reset(lua: lua) }
        }
        let transient = (0..<graph.count).filter { graph.terminal[$0] == nil }
        guard !transient.isEmpty else { return nil }
        let step = max(1, transient.count / Self.growthSample)
        let sample = stride(from: 0, to: transient.count, by: step).map { transient[$0] }
        var firstSeen: [String: [String: Int]] = [:]
        var names: [String: String] = [:]
        var order: [String] = []
        for (rank, position) in sample.enumerated() {
            do { try restore(position) } catch { return nil }
            var fields: [(path: String, name: String, value: String)] = []
            if case .table(let state) = lua.get(game.g, "state") { collect(state, path: "g.state", name: nil, depth: 0, into: &fields) }
            for (seat, player) in game.playerTables.enumerated() {
                guard case .table(let table) = player else { continue }
                collect(table, path: "g.players[\(seat + 1)]", name: nil, depth: 0, into: &fields, skipping: ["name", "seat", "last_roll"])
            }
            for field in fields {
                if firstSeen[field.path] == nil { order.append(field.path); names[field.path] = field.name }
                if firstSeen[field.path, default: [:]][field.value] == nil, firstSeen[field.path, default: [:]].count < 100_000 {
                    firstSeen[field.path, default: [:]][field.value] = rank
                }
            }
        }
        let lateFrom = sample.count - sample.count / 5
        let fields = order.compactMap { path -> GrowingFields.Field? in
            guard let seen = firstSeen[path], seen.count > 1 else { return nil }
            return GrowingFields.Field(path: path, name: names[path] ?? path, values: seen.count,
                                       late: sample.count >= 5 ? seen.values.filter { $0 >= lateFrom }.count : 0)
        }
        guard !fields.isEmpty else { return nil }
        let growing = fields.filter { $0.late > 0 }
        let stillGrowing = !growing.isEmpty
        let mostVaried = fields.sorted { $0.values > $1.values }
        var shown = Array((stillGrowing ? growing.sorted { ($0.late, $0.values) > ($1.late, $1.values) } : mostVaried)
            .prefix(Self.growthFieldsShown))
        // A field that only multiplies positions (a counter) need not be the one with new
        // values last: the most varied are all checked.
        let (unread, games) = unreadFields(mostVaried)
        for field in mostVaried where unread.contains(field.name) && !shown.contains(where: { $0.name == field.name }) {
            shown.append(field)
        }
        return GrowingFields(fields: shown, stillGrowing: stillGrowing, sampled: sample.count, found: graph.count,
                             unread: unread, checkedGames: games)
    }

    /// Each scalar field under `table` (tables followed two levels down) with its value's
    /// text; functions and other non-data are left out (the same in every position).
    private func collect(_ table: LuaRef, path: String, name: String?, depth: Int,
                         into fields: inout [(path: String, name: String, value: String)], skipping: Set<String> = []) {
        for (key, value) in game.lua.entries(table) {
            let keyText: String
            let here: String
            switch key {
            case .string(let s):
                if skipping.contains(s) { continue }
                keyText = s
                here = "\(path).\(s)"
            case .integer(let i):
                keyText = String(i)
                here = "\(path)[\(i)]"
            default:
                continue
            }
            let top = name ?? keyText
            switch value {
            case .boolean, .integer, .number, .string: fields.append((here, top, value.description))
            case .table(let inner) where depth < 2: collect(inner, path: here, name: top, depth: depth + 1, into: &fields)
            default: continue
            }
        }
    }

    /// The fields' top-level names that play never read in the sampled games of a
    /// `statistics` check (each name checked alone, beside any the rules declare).
    private func unreadFields(_ fields: [GrowingFields.Field]) -> ([String], Int) {
        let declared = game.rules.statistics
        var candidates: [String] = []
        for field in fields where !declared.contains(field.name) && !candidates.contains(field.name) && !field.name.allSatisfy(\.isNumber) {
            candidates.append(field.name)
        }
        candidates = Array(candidates.prefix(Self.growthCandidatesChecked))
        guard !candidates.isEmpty, let moves = try? MoveExplorer(states: self, game: game) else { return ([], 0) }
        var unread: [String] = []
        for name in candidates {
            do {
                try restore(0)
                let names = declared + [name]
                _ = try game.lua.call(codec.rememberStatistics, [.table(game.g), .table(playerList), .table(game.lua.makeTable(array: names.map { .string($0) }))],
                                      budget: .some(nil))
                try moves.checkStatistics(names: names)
                unread.append(name)
            } catch {
                continue
            }
        }
        return (unread, MoveExplorer.statisticsWalks)
    }
}

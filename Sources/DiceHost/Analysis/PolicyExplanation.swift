import Foundation
import Lua

/// The best-play policy told compactly (`dicehost solve --explain`).
///
/// Where the game has the shape of Pig (two seats; the only moves roll and one action;
/// the position is one number in `g.state`, the turn total, and one number per player,
/// the score), the policy is the turn total at which to take the action, by both scores:
/// `threshold`. Otherwise, for each data field of the position (see
/// `dicehost-explain.lua`) and each value it takes, how many positions choose each move:
/// `byField`.
public struct PolicyExplanation: Sendable {
    /// Pig's shape: the smallest turn total at which best play takes `action`, for each
    /// pair (my score, the opponent's score) the game reaches.
    public struct Threshold: Sendable {
        public var action: String
        /// The field names: the turn total (in g.state) and the score (in each player).
        public var turnField: String
        public var scoreField: String
        /// threshold[my score]?[opponent's score]: nil where best play never takes the
        /// action (rolls on); `clean` false where rolling and the action interleave.
        public var cells: [Int: [Int: (at: Int?, clean: Bool)]]
        public var largestScore: Int
    }

    public struct FieldCounts: Sendable {
        public var field: String
        /// Each value the field takes (in order), with the positions choosing each move.
        public var values: [(value: String, moves: [(String, Int)])]
    }

    public var threshold: Threshold?
    public var byField: [FieldCounts]
    public var positions: Int
}

extension MoveExplorer {
    /// Each decision position's fields and best move, then the pattern.
    func explanation(choice: [Int32]) throws -> PolicyExplanation {
        let lua = game.lua
        let source = String(decoding: PackageResources.dicehost_explain_lua, as: UTF8.self)
        let fieldsFunction = try lua.call(.function(try lua.load(source, chunkName: "dicehost-explain")), [], budget: .some(nil)).first ?? .nil
        var rows: [(fields: [(String, String)], move: String)] = []
        var legal: Set<String> = []
        for s in 0..<graph.count where graph.terminal[s] == nil && choice[s] >= 0 {
            try states.restore(s)
            guard case .table(let list)? = try lua.call(fieldsFunction, [.table(game.g)], budget: .some(nil)).first else {
                throw OddsError.internal("the fields of position \(s + 1)")
            }
            let fields: [(String, String)] = lua.array(list).compactMap {
                guard case .string(let pair) = $0, let eq = pair.firstIndex(of: "=") else { return nil }
                return (String(pair[..<eq]), String(pair[pair.index(after: eq)...]))
            }
            rows.append((fields, graph.moves[Int(choice[s])].label))
            for m in graph.moveStart[s]..<graph.moveStart[s + 1] where !graph.botOnly.contains(m) { legal.insert(graph.moves[m].label) }
        }
        return PolicyExplanation(threshold: Self.threshold(rows, legal: legal, seats: game.playerNames.count),
                                 byField: Self.byField(rows), positions: rows.count)
    }

    static func byField(_ rows: [(fields: [(String, String)], move: String)]) -> [PolicyExplanation.FieldCounts] {
        var table: [String: [String: [String: Int]]] = [:]
        for row in rows {
            for (field, value) in row.fields { table[field, default: [:]][value, default: [:]][row.move, default: 0] += 1 }
        }
        func order(_ a: String, _ b: String) -> Bool {
            if let x = Double(a), let y = Double(b) { return x < y }
            return a < b
        }
        return table.keys.sorted().compactMap { field in
            guard let values = table[field], values.count > 1 else { return nil }  // the same everywhere: says nothing
            return PolicyExplanation.FieldCounts(field: field, values: values.keys.sorted(by: order).map { value in
                (value, (values[value] ?? [:]).sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { ($0.key, $0.value) })
            })
        }
    }

    /// `legal`: every move legal somewhere (best play may never take the action).
    static func threshold(_ rows: [(fields: [(String, String)], move: String)], legal: Set<String>, seats: Int) -> PolicyExplanation.Threshold? {
        guard seats == 2, !rows.isEmpty else { return nil }
        guard legal.count == 2, legal.contains("roll"), let action = legal.first(where: { $0 != "roll" }) else { return nil }
        // One integer in g.state, one integer per player (the same name), nothing else.
        // Fields that take one value everywhere (a flag never set) say nothing.
        var valuesOf: [String: Set<String>] = [:]
        for row in rows { for (name, value) in row.fields { valuesOf[name, default: []].insert(value) } }
        let names = Set(valuesOf.filter { $0.value.count > 1 }.keys)
        let stateFields = names.filter { $0.hasPrefix("state.") }, mine = names.filter { $0.hasPrefix("me.") }
        guard stateFields.count == 1, mine.count == 1, let turnField = stateFields.first, let me = mine.first else { return nil }
        let score = String(me.dropFirst(3))
        guard names == [turnField, me, "opponent." + score] else { return nil }
        // Per (my score, opponent's score): the turn totals that roll and that take the action.
        var seen: [Int: [Int: (roll: Set<Int>, act: Set<Int>)]] = [:]
        var decided: [[Int]: String] = [:]
        var largest = 0
        for row in rows {
            let f = Dictionary(row.fields, uniquingKeysWith: { a, _ in a })
            guard let t = f[turnField].flatMap({ Int($0) }), let i = f[me].flatMap({ Int($0) }),
                  let j = f["opponent." + score].flatMap({ Int($0) }) else { return nil }
            // Both seats decide alike from the same scores and turn total, or there is no one table.
            if let other = decided[[i, j, t]], other != row.move { return nil }
            decided[[i, j, t]] = row.move
            largest = max(largest, i, j)
            var cell = seen[i, default: [:]][j, default: (roll: [], act: [])]
            if row.move == "roll" { cell.roll.insert(t) } else { cell.act.insert(t) }
            seen[i, default: [:]][j] = cell
        }
        var cells: [Int: [Int: (at: Int?, clean: Bool)]] = [:]
        for (i, row) in seen {
            for (j, cell) in row {
                let at = cell.act.min()
                let clean = at.map { a in cell.roll.allSatisfy { $0 < a } } ?? true
                cells[i, default: [:]][j] = (at, clean)
            }
        }
        return PolicyExplanation.Threshold(action: action, turnField: String(turnField.dropFirst(6)), scoreField: score,
                                           cells: cells, largestScore: largest)
    }
}

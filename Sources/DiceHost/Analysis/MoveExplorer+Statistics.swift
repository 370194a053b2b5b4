import Lua

/// `rules.statistics` is a promise: later play never depends on those fields. Positions
/// hold their starting values instead (`StateExplorer.forgetStatistics`), which is sound
/// only if the promise holds, so it is checked as `unordered_dice` is, on samples: games
/// played from the start with random moves and rolls, the fields counting as they do in
/// a real game. At every step a few moves are made twice, once from the game as it is and
/// once with the fields at their starting values; both must be refused alike or reach
/// the same position (each key made with the fields forgotten).
extension MoveExplorer {
    static let statisticsWalks = 16
    static let statisticsSteps = 200
    static let statisticsMovesPerStep = 6

    func checkStatistics() throws {
        try checkStatistics(names: game.rules.statistics)
    }

    /// The check of `names` (the codec must hold their starting values: `StateExplorer.forgetStatistics`,
    /// or `remember_statistics` for names a look at what grows tries).
    func checkStatistics(names: [String]) throws {
        guard !names.isEmpty else { return }
        let lua = game.lua
        var random = SplitMix64(seed: 0x5EED_57A7)
        let startHost = game.host
        for _ in 0..<Self.statisticsWalks {
            try states.restore(0)
            var natural = try states.snapshot("a sampled game")
            var naturalHost = game.host
            var path: [String] = []
            for _ in 0..<Self.statisticsSteps {
                try states.putBack(natural, host: naturalHost)
                guard game.host.outcome == nil else { break }
                let seat: Int
                do { seat = try game.seat(of: nil) } catch { break }
                let moves = try candidateMoves(seat: seat, random: &random)
                guard !moves.isEmpty else { break }
                var tried = moves
                if tried.count > Self.statisticsMovesPerStep {
                    tried.shuffle(using: &random)
                    tried = Array(tried.prefix(Self.statisticsMovesPerStep))
                }
                var legal: [(label: String, after: [LuaValue], host: Game.HostState)] = []
                for move in tried {
                    try states.putBack(natural, host: naturalHost)
                    let played = try play(move)
                    var after: [LuaValue] = []
                    var afterHost = game.host
                    if case .reached = played {
                        after = try states.snapshot("a sampled game")
                        afterHost = game.host
                    }
                    let asIs = try result(of: played)
                    try states.putBack(natural, host: naturalHost)
                    do { _ = try lua.call(states.codec.forgetStatistics, [.table(game.g), .table(states.playerList)], budget: .some(nil)) } catch {
                        throw OddsError.internal("forgetting statistics: \(error)")
                    }
                    let forgotten = try result(of: try play(move))
                    if asIs != forgotten {
                        try states.putBack(natural, host: naturalHost)
                        throw OddsError.notAnalysable(mismatch(move: move.label, path: path, names: names, asIs: asIs, forgotten: forgotten))
                    }
                    if case .reached = played { legal.append((move.label, after, afterHost)) }
                }
                guard let next = legal.randomElement(using: &random) else { break }
                natural = next.after
                naturalHost = next.host
                path.append(next.label)
            }
        }
        game.host = startHost
        try states.restore(0)
    }

    /// A move to try: its label and how to make it.
    struct SampleMove {
        var label: String
        var make: () throws -> Void
    }

    /// What a move did: refused by the rules, failed, or reached a position (its key).
    enum Played: Equatable {
        case refused
        case failed(String)
        case reached(String)
    }

    func candidateMoves(seat: Int, random: inout SplitMix64) throws -> [SampleMove] {
        var moves: [SampleMove] = []
        if let dice = try? game.dice(forSeat: seat), !dice.exploding {
            let values = (0..<dice.count).map { _ in Int(random.next() % UInt64(max(1, dice.sides))) + 1 }
            let text = values.map(String.init).joined(separator: " ")
            moves.append(SampleMove(label: "roll \(text)") { [game] in try game.roll(values: values) })
        }
        for action in actionMoves {
            // A choices function that fails or draws is reported by the exploration itself.
            guard let lists = try? argumentLists(action, seat: seat) else { continue }
            for arguments in lists {
                let label = Self.label(action: action.name, arguments: arguments)
                moves.append(SampleMove(label: label) { [game] in
                    try game.withInputBudget { try game.act(action.name, arguments: arguments) }
                })
            }
        }
        return moves
    }

    func play(_ move: SampleMove) throws -> Played {
        // What a sampled move shows nobody (events, when they are kept for secrets).
        defer { game.eventLog.removeAll(keepingCapacity: true) }
        do { try move.make() } catch {
            return Self.isRefusal(error) ? .refused : .failed("\(error)")
        }
        return .reached("")
    }

    /// The key of the position a move reached (forgetting statistics in the live game).
    func result(of played: Played) throws -> Played {
        guard case .reached = played else { return played }
        return .reached(try states.currentKey())
    }

    func mismatch(move: String, path: [String], names: [String], asIs: Played, forgotten: Played) -> String {
        let state = game.lua.get(game.g, "state")
        var values: [String] = []
        for name in names {
            if case .table(let t) = state, game.lua.get(t, .string(name)) != .nil {
                values.append("g.state.\(name) = \(game.lua.get(t, .string(name)).description.prefix(40))")
            }
            for (seat, player) in game.playerTables.enumerated() {
                guard case .table(let p) = player, game.lua.get(p, .string(name)) != .nil else { continue }
                values.append("\(game.playerName(seat: seat + 1)).\(name) = \(game.lua.get(p, .string(name)).description.prefix(40))")
            }
        }
        func text(_ played: Played) -> String {
            switch played {
            case .refused: return "is refused"
            case .failed(let error): return "fails (\(error.prefix(120)))"
            case .reached: return "reaches a position"
            }
        }
        let shownPath = path.count > 12 ? path.prefix(4).joined(separator: ", ") + ", … " + path.suffix(6).joined(separator: ", ") : path.joined(separator: ", ")
        let differently = (asIs.isReached && forgotten.isReached) ? "reaches different positions" : "\(text(asIs)) as the game is but \(text(forgotten)) with them at their starting values"
        return "the rules declare statistics = {\(names.map { "\"\($0)\"" }.joined(separator: ", "))}, but play depends on them: "
            + "after \(path.isEmpty ? "the start" : shownPath) (\(values.isEmpty ? "no statistics set" : values.joined(separator: ", "))), "
            + "'\(move)' \(differently). Take the field out of statistics, or keep what play reads in another field"
    }
}

extension MoveExplorer.Played {
    var isReached: Bool { if case .reached = self { return true } else { return false } }
}

import DiceHost
import Foundation

/// Skill, decisions and drama: figures over every position legal moves reach.
extension ReportBuilder {
    static let tolerance = 1e-10

    func solved(_ values: ReportChain.Values) -> ReportMethod {
        .solved(tolerance: max(values.residual, Self.tolerance), what: "value iteration to")
    }

    func skill() -> ReportSection {
        guard let graph, let chain else { return .missing(.skill, "no exact positions: \(graphWhyNot ?? "not explored")") }
        var section = ReportSection(.skill)
        let seats = graph.players.count
        let tolerance = String(format: "%.0e", Self.tolerance)
        if graph.hasView {
            skillWithSecrets(&section)
        } else if !botsPlayTheGame || graph.botDrawsRandom {
            section.method = "solved: best play by every seat, value iteration to \(tolerance) over \(graph.count) positions"
            let best = chain.values(Array(repeating: .best, count: seats), deadline: deadline(share: 0.2))
            for (seat, name) in graph.players.enumerated() {
                section.figures.append(ReportFigure(id: "best.\(name)", label: "\(name) under best play by every seat",
                                                    value: best.values[seat], unit: .probability, method: solved(best)))
            }
            section.notes.append(!botsPlayTheGame ? "no figures against the bots: \(noBotLine)"
                                 : "no figures against the bots: the bot draws random numbers (a bluff), so it has no one move per position")
            return section
        } else {
            section.method = "solved: value iteration to \(tolerance) over \(graph.count) positions reached by legal moves"
            var rows: [[String]] = []
            for (seat, name) in graph.players.enumerated() {
                func with(_ mine: ReportChain.Play, _ others: ReportChain.Play) -> ReportChain.Values {
                    chain.values((0..<seats).map { $0 == seat ? mine : others }, deadline: deadline(share: 0.6 / Double(3 * seats)))
                }
                let bestVsBots = with(.best, .bot), botVsBest = with(.bot, .best), randomVsBots = with(.random, .bot)
                let bots = botValues?.values[seat] ?? 0
                section.figures.append(ReportFigure(id: "best_vs_bots.\(name)", label: "\(name): best play against the bots",
                                                    value: bestVsBots.values[seat], unit: .probability, method: solved(bestVsBots)))
                section.figures.append(ReportFigure(id: "bot_vs_best.\(name)", label: "\(name): the bot against best play",
                                                    value: botVsBest.values[seat], unit: .probability, method: solved(botVsBest)))
                section.figures.append(ReportFigure(id: "random_vs_bots.\(name)", label: "\(name): a random legal player against the bots",
                                                    value: randomVsBots.values[seat], unit: .probability, method: solved(randomVsBots)))
                section.figures.append(ReportFigure(id: "gain.\(name)", label: "\(name): points a good player gains over the bot",
                                                    value: (bestVsBots.values[seat] - bots) * 100, unit: .number, method: solved(bestVsBots)))
                rows.append([name, pct(randomVsBots.values[seat]), pct(bots), pct(bestVsBots.values[seat]), pct(botVsBest.values[seat]),
                             String(format: "%+.1f", (bestVsBots.values[seat] - bots) * 100)])
            }
            section.tables.append(ReportTable(caption: "Each seat against the bots in the other seats",
                                              headers: ["seat", "random", "bot", "best", "bot vs best", "points gained"], rows: rows))
            if let first = rows.first { section.notes.insert("a good player in \(first[0])'s seat gains \(first[5]) points of winning chance over the bot", at: 0) }
        }
        return section
    }

    func pct(_ p: Double) -> String { String(format: "%.2f%%", p * 100) }

    /// A game with a view: best play is an equilibrium over what each seat is shown, and
    /// the bots are measured by what a best reply that sees only its own seat gains.
    func skillWithSecrets(_ section: inout ReportSection) {
        var options = BestPlay.Options()
        options.players = players
        options.params = params
        // The same positions the graph already holds: never fewer.
        options.maxStates = max(200, (graph?.count ?? 0) + 1, Int(rate * left * 0.3))
        options.maxMemory = 2 << 30
        options.explains = true
        options.equilibrium.exploitability = 1e-3
        let stopAt = deadline(share: 0.3)
        options.equilibrium.shouldStop = { Date() > stopAt }
        do {
            let v = try BestPlay.versus(rulesFile: rulesFile, options: options)
            versusWithSecrets = v
            let e = v.exploitability ?? 0
            section.method = String(format: "solved: CFR+ equilibrium over what each seat is shown, exploitability %.1e; %d positions", e, v.states)
            for (seat, name) in v.players.enumerated() {
                section.figures.append(ReportFigure(id: "equilibrium.\(name)", label: "\(name) under the equilibrium", value: v.best[seat],
                                                    unit: .probability, method: .solved(tolerance: max(e, 1e-16), what: "exploitability")))
                section.figures.append(ReportFigure(id: "bot_vs_best.\(name)", label: "\(name): the bot against a best reply", value: v.botInSeat[seat][seat],
                                                    unit: .probability, method: .solved(tolerance: max(e, 1e-16), what: "exploitability")))
                section.figures.append(ReportFigure(id: "exploitable.\(name)", label: "\(name)'s bot gives away (points)",
                                                    value: (v.best[seat] - v.botInSeat[seat][seat]) * 100, unit: .number,
                                                    method: .solved(tolerance: max(e, 1e-16) * 100, what: "exploitability")))
            }
        } catch {
            section.method = "no equilibrium: \(error)"
        }
        if let chain, let botValues, !chain.graph.botDrawsRandom, botsPlayTheGame {
            let seats = chain.seats
            for (seat, name) in chain.graph.players.enumerated() {
                let random = chain.values((0..<seats).map { $0 == seat ? .random : .bot }, deadline: deadline(share: 0.05))
                section.figures.append(ReportFigure(id: "random_vs_bots.\(name)", label: "\(name): a random legal player against the bots",
                                                    value: random.values[seat], unit: .probability, method: solved(random)))
                section.figures.append(ReportFigure(id: "bots.\(name)", label: "\(name): the bot against the bots",
                                                    value: botValues.values[seat], unit: .probability, method: solved(botValues)))
            }
        } else if chain?.graph.botDrawsRandom == true {
            section.notes.append("no random player against the bots: the bot draws random numbers (a bluff), so it has no one move per position")
        }
        if section.figures.isEmpty { section.notComputed = section.method }
    }

    func decisions() -> ReportSection {
        guard let graph, let chain else { return .missing(.decisions, "no exact positions: \(graphWhyNot ?? "not explored")") }
        guard botsPlayTheGame else { return .missing(.decisions, noBotLine) }
        if graph.hasView { return decisionsWithSecrets() }
        guard !graph.botDrawsRandom, let values = botValues?.values else {
            return .missing(.decisions, "the bot draws random numbers (a bluff), so it has no one move per position to weigh")
        }
        var section = ReportSection(.decisions)
        let visits = chain.visits(deadline: deadline(share: 0.05))
        var reached = 0.0, matters = 0.0, givenAway = 0.0
        var costly: [(position: Int, seat: Int, bot: Int, best: Int, cost: Double, visits: Double)] = []
        for s in 0..<graph.count where graph.outcome[s] == nil && visits[s] > 0 {
            let moves = chain.legalMoves(s)
            guard moves.count >= 2, let bot = chain.botMove(s) else { continue }
            let seat = Int(graph.decider[s])
            let q = moves.map { chain.moveValue($0, seat: seat, values) }
            guard let hi = q.max(), let lo = q.min(), let bestIndex = q.firstIndex(of: hi) else { continue }
            reached += visits[s]
            if hi - lo > 0.01 { matters += visits[s] }
            let cost = hi - chain.moveValue(bot, seat: seat, values)
            givenAway += visits[s] * max(cost, 0)
            if cost > 1e-9 { costly.append((s, seat, bot, moves[bestIndex], cost, visits[s])) }
        }
        guard reached > 0 else {
            return .missing(.decisions, "no player ever chooses: every position the bots reach has one legal move")
        }
        let method = solved(botValues ?? ReportChain.Values(values: [], residual: Self.tolerance, sweeps: 0))
        section.method = "solved: each legal move's value when the bots play on, weighted by how often the bots reach the position"
        section.figures.append(ReportFigure(id: "decisions.per_game", label: "decisions per game (two or more legal moves)",
                                            value: reached, unit: .number, method: method))
        section.figures.append(ReportFigure(id: "decisions.matter", label: "decisions where the best and worst move differ by more than 1 point",
                                            value: matters / reached, unit: .probability, method: method))
        section.figures.append(ReportFigure(id: "decisions.given_away", label: "points the bots give away per game (sum over their decisions)",
                                            value: givenAway * 100, unit: .number, method: method))
        costly.sort { $0.cost * $0.visits > $1.cost * $1.visits }
        var rows: [[String]] = []
        let top = Array(costly.prefix(5))
        let fields = top.map { (try? graph.fields(of: $0.position)) ?? [] }
        // A field with one value in every row tells the rows apart from nothing: said once below.
        let shared = top.count > 1 ? fields.dropFirst().reduce(Set(fields.first ?? [])) { $0.intersection($1) } : []
        for (c, list) in zip(top, fields) {
            rows.append([graph.players[c.seat], list.filter { !shared.contains($0) }.prefix(8).joined(separator: ", "),
                         graph.moveLabels[c.bot], graph.moveLabels[c.best],
                         String(format: "%.2f", c.cost * 100), String(format: "%.3g", c.visits)])
        }
        if !shared.isEmpty { section.notes.append("in every one of these positions: " + shared.sorted().joined(separator: ", ")) }
        if rows.isEmpty { section.notes.append("the bots never make a move worse than the best one") }
        section.tables.append(ReportTable(caption: "The five costliest bot moves (cost × how often reached)",
                                          headers: ["seat", "position", "the bot plays", "best move", "cost (points)", "reached per game"], rows: rows))
        return section
    }

    /// With secrets the cost of a move is judged by a best reply that sees only its own
    /// seat's information: the equilibrium's costliest information sets.
    func decisionsWithSecrets() -> ReportSection {
        guard let v = versusWithSecrets else {
            return .missing(.decisions, "a game with secrets: the bot's costly moves come from the equilibrium, which was not found (see Skill)")
        }
        var section = ReportSection(.decisions)
        section.method = "solved: where a best reply that sees only its own seat gains most against the bot (the equilibrium's information sets)"
        section.notes.append("the share of decisions that matter is not computed for a game with secrets: a position's value would look at hidden cups")
        var rows: [[String]] = []
        for (seat, list) in v.costliest.enumerated() {
            for c in list { rows.append([v.players[seat], c.view.prefix(6).joined(separator: "; "), c.botMove, c.betterMove, String(format: "%.2f", c.loss * 100)]) }
        }
        rows.sort { (Double($0[4]) ?? 0) > (Double($1[4]) ?? 0) }
        for (seat, name) in v.players.enumerated() {
            section.figures.append(ReportFigure(id: "exploitable.\(name)", label: "\(name)'s bot gives away (points)", value: (v.best[seat] - v.botInSeat[seat][seat]) * 100,
                                                unit: .number, method: .solved(tolerance: max(v.exploitability ?? 0, 1e-16) * 100, what: "exploitability")))
        }
        section.tables.append(ReportTable(caption: "The costliest bot moves", headers: ["seat", "what the seat sees", "the bot plays", "better", "cost (points)"],
                                          rows: Array(rows.prefix(5))))
        return section
    }

    func drama() -> ReportSection {
        guard let graph, let chain else { return .missing(.drama, "who leads is told by each position's chances under the bots, and the positions did not fit: \(graphWhyNot ?? "not explored")") }
        guard graph.players.count >= 2 else { return .missing(.drama, "one seat: there is no lead to change") }
        guard botsPlayTheGame else { return .missing(.drama, noBotLine) }
        guard !graph.botDrawsRandom, let values = botValues?.values else {
            return .missing(.drama, "the bot draws random numbers (a bluff): games cannot be walked through the positions")
        }
        let seats = graph.players.count, width = seats + 1
        var random = SplitMix64(seed: seed)
        let stop = deadline(share: 0.1)
        var changes = IntegerTally()
        var behindWins = 0, withHalf = 0, lastTurn = 0, won = 0, games = 0
        func leader(_ s: Int, previous: Int) -> Int {
            var best = previous, top = previous >= 0 ? values[s * width + previous] : -1
            for k in 0..<seats where values[s * width + k] > top + 1e-12 { best = k; top = values[s * width + k] }
            return best
        }
        while games < 20_000 && (games < 500 || Date() < stop) {
            games += 1
            let (path, outcome) = chain.walk(&random, moveLimit: 10_000)
            // Turn starts: the start, and each position where another seat is to move.
            var starts: [Int] = []
            var lastDecider: Int32 = -2
            for s in path where graph.outcome[s] == nil && graph.decider[s] != lastDecider {
                starts.append(s)
                lastDecider = graph.decider[s]
            }
            var lead = -1, count = 0
            var leaders: [Int] = []
            for s in starts {
                let now = leader(s, previous: lead)
                if lead >= 0 && now != lead { count += 1 }
                lead = now
                leaders.append(now)
            }
            changes.add(count)
            guard let winner = outcome, winner >= 0 else { continue }
            won += 1
            if starts.count >= 2 {
                withHalf += 1
                if leaders[starts.count / 2] != winner { behindWins += 1 }
            }
            if let final = starts.last, values[final * width + winner] < 0.5 { lastTurn += 1 }
        }
        var section = ReportSection(.drama)
        section.method = "sampled: \(games) games walked through the positions by the bots; the leader is the seat with the best chance under the bots"
        let mean = Estimate.mean(changes.mean, standardDeviation: changes.standardDeviation, count: changes.count)
        section.figures.append(ReportFigure(id: "lead_changes", label: "lead changes per game", value: mean.value, unit: .number,
                                            method: .sampled(lower: mean.lower, upper: mean.upper, games: changes.count)))
        let behind = Estimate.proportion(behindWins, of: withHalf)
        section.figures.append(ReportFigure(id: "behind_at_half_wins", label: "the player behind at half-time wins", value: behind.value,
                                            unit: .probability, method: .sampled(lower: behind.lower, upper: behind.upper, games: withHalf)))
        let last = Estimate.proportion(lastTurn, of: won)
        section.figures.append(ReportFigure(id: "decided_last_turn", label: "decided on the last turn (the winner's chance was below 1/2 as it began)",
                                            value: last.value, unit: .probability, method: .sampled(lower: last.lower, upper: last.upper, games: won)))
        let top = changes.maximum ?? 0
        var frequency = [Double](repeating: 0, count: top + 1)
        for (value, n) in changes.counts where value >= 0 { frequency[value] += Double(n) / Double(max(changes.count, 1)) }
        section.charts.append(ReportChart(title: "Lead changes per game", svg: ReportSVG.histogram(frequency, xLabel: "lead changes", upTo: changes.quantile(0.995))))
        return section
    }
}

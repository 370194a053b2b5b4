import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Odds: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Exact win, loss and draw probabilities of a rule script under its bots.",
            discussion: """
                Follows every position the bots can reach and every outcome of every roll, then
                solves the resulting absorbing Markov chain (strongly connected components in
                reverse topological order, each a linear system): exact fractions up to
                --exact-limit positions, doubles with a stated error bound above. Rules that draw
                random numbers in a hook, bots that change the game, or exploding dice are not
                analysable: the error says which hook and why. Exits 1 when the game is not
                analysable or reaches a limit (--max-states, --max-memory, --max-roll-outcomes:
                the message names the limit, the flag that raises it and the fields of the game
                whose values keep growing; use `dicehost sim` then). Progress goes to standard error: a redrawn line
                on a terminal, else a line every 10 s (DICEHOST_PROGRESS_SECONDS sets the interval).
                """
        )

        @Argument(help: "The rule script, e.g. rules/race.lua.")
        var rules: String

        @OptionGroup var table: TableOptions

        @Option(help: "A second rule script (a variant) to analyse too and report the exact differences.")
        var compare: String?

        @OptionGroup var limits: ExplorationLimits

        @Option(help: "The most outcomes one roll may have (each is played from every position that rolls; 46656 is 6d6).")
        var maxRollOutcomes = DiceHost.Odds.defaultMaxRollOutcomes

        @Option(help: "auto (exact fractions up to --exact-limit positions), exact, or double.")
        var precision = "auto"

        @Option(help: "The most positions solved in exact fractions under --precision auto.")
        var exactLimit = 50_000

        @Option(help: "One row per value of a param, e.g. --sweep target=10..60:10 (the fairest value marked).")
        var sweep: String?

        @Option(help: "With --sweep: also draw the rows as an SVG line chart into this file.")
        var chart: String?

        @Option(help: "solver: the rules' bot in each seat against best play in the others (exact, as `dicehost solve`); FILE.lua: a policy module (as `solve --policy` writes) in each seat against the rules' bot.")
        var vs: String?

        @Flag(help: "With --vs solver in a game with secrets: list the bot's information sets where a different move would gain the most.")
        var explain = false

        @Flag(help: "With --vs solver in a game with a view: best replies that see every cup (not the game as played).")
        var open = false

        @Flag(help: "Print the result as JSON.")
        var json = false

        @Flag(help: "No progress line on standard error.")
        var quiet = false

        func run() throws {
            var options = DiceHost.Odds.Options()
            do {
                options.params = table.params
                guard let precision = DiceHost.Odds.Precision(rawValue: precision) else {
                    throw GameOptions.UsageError(description: "--precision must be auto, exact or double, got '\(precision)'")
                }
                options.precision = precision
                guard exactLimit >= 0 else { throw GameOptions.UsageError(description: "--exact-limit must be at least 0, got \(exactLimit)") }
                options.maxStates = limits.maxStates
                options.maxMemory = try limits.memoryBytes()
                guard (1...DiceHost.Odds.maxRollOutcomesCeiling).contains(maxRollOutcomes) else {
                    throw GameOptions.UsageError(description: "--max-roll-outcomes must be 1 to \(DiceHost.Odds.maxRollOutcomesCeiling), got \(maxRollOutcomes)")
                }
                options.maxRollOutcomes = maxRollOutcomes
                options.exactStateLimit = exactLimit
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            options.players = try table.playerNames(rules: rules)
            if let sweep {
                try runSweep(sweep, options)
                return
            }
            if let vs {
                guard vs == "solver" || vs.hasSuffix(".lua") else {
                    printError("dicehost: --vs takes 'solver' (the best player) or a policy module FILE.lua (as `dicehost solve --policy` writes), got '\(vs)'")
                    throw ExitStatus.usage
                }
                var best = BestPlay.Options()
                best.players = options.players
                best.params = options.params
                best.maxStates = options.maxStates
                best.maxMemory = options.maxMemory
                best.maxRollOutcomes = options.maxRollOutcomes
                best.explains = explain
                best.open = open
                if vs != "solver" {
                    let played = try AnalysisProgress.run(rules, quiet: quiet) { progress in
                        try BestPlay.versus(rulesFile: rules, policyFile: vs, options: best, progress: progress)
                    }
                    print(json ? OddsReport.json(played) : OddsReport.text(played, rules: rules))
                    return
                }
                let versus = try AnalysisProgress.run(rules, quiet: quiet) { progress in
                    try BestPlay.versus(rulesFile: rules, options: best, progress: progress)
                }
                print(json ? OddsReport.json(versus) : OddsReport.text(versus, rules: rules))
                return
            }
            let first = try analyse(rules, options)
            guard let compare else {
                print(json ? OddsReport.json(first) : OddsReport.text(first))
                return
            }
            var other = options
            other.players = try table.playerNames(rules: compare)
            let second = try analyse(compare, other)
            print(json ? OddsReport.json(first, comparedWith: second) : OddsReport.text(first, comparedWith: second))
        }

        func runSweep(_ text: String, _ options: DiceHost.Odds.Options) throws {
            let plan: Sweep
            do { plan = try Sweep.parse(text) } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            var rows: [Sweep.Row] = []
            var results: [DiceHost.Odds.Result] = []
            for value in plan.values {
                var each = options
                each.params = options.params.filter { $0.0 != plan.param } + [(plan.param, String(value))]
                let result = try analyse(rules, each)
                results.append(result)
                rows.append(Sweep.Row(value: value, wins: result.wins.map(\.double), length: result.rolls?.double))
            }
            let players = results.first?.players ?? []
            if let chart {
                let title = "\(results.first?.rules ?? rules): win probability by \(plan.param) (the rules' bots)"
                try Sweep.writeChart(rows, players: players, param: plan.param, title: title, to: chart, rules: rules)
            }
            if json {
                print(Sweep.json(rows, players: players, param: plan.param))
            } else {
                print("\(results.first?.rules ?? rules) (\(rules)): exact win probabilities under the bots, by \(plan.param)")
                print(Sweep.table(rows, players: players, param: plan.param, lengthTitle: "expected rolls"))
            }
        }

        func analyse(_ file: String, _ options: DiceHost.Odds.Options) throws -> DiceHost.Odds.Result {
            try AnalysisProgress.run(file, quiet: quiet, suggestsSim: true) { progress in
                try DiceHost.Odds.analyse(rulesFile: file, options: options, progress: progress)
            }
        }
    }
}

/// How `dicehost odds` shows a result.
enum OddsReport {
    /// Median, 90th percentile and a histogram of the number of rolls (bins of equal width).
    static func rollHistogram(_ d: LengthDistribution, of what: String = "rolls") -> [String] {
        guard let median = d.median, let p90 = d.percentile90 else { return [] }
        var lines = ["\(what) per game: median \(median), 90th percentile \(p90), at most \(d.probability.count - 1)"
                     + (d.unfinished > 1e-9 ? String(format: " (%.2g not ended)", d.unfinished) : "")]
        let last = max(d.quantile(0.999) ?? (d.probability.count - 1), 1)
        let width = max(1, (last + 15) / 16)
        var bins: [(Int, Double)] = []
        var start = 0
        while start <= last {
            let end = min(start + width, d.probability.count)
            bins.append((start, d.probability[start..<max(start, end)].reduce(0, +)))
            start += width
        }
        let top = bins.map(\.1).max() ?? 1
        for (from, p) in bins {
            let label = width == 1 ? String(from) : "\(from)-\(from + width - 1)"
            lines.append("  " + pad(label, 10) + String(format: "%7.3f%% ", p * 100) + String(repeating: "█", count: Int((p / max(top, 1e-300) * 30).rounded())))
        }
        return lines
    }

    /// `--vs solver`: each seat's bot against best play.
    static func text(_ v: BestPlay.Versus, rules: String) -> String {
        if v.withSecrets { return secretsText(v, rules: rules) }
        return comparison("\(rules): the rules' bot against best play (each other seat plays its best reply)",
                   states: v.states, tolerance: v.tolerance, residual: v.residual, seconds: v.seconds,
                   columns: "bot vs best    best vs best   given away", differenceFormat: "%.6f",
                   rows: v.players.indices.map { (v.players[$0], v.botInSeat[$0][$0], v.best[$0]) }, difference: { $1 - $0 })
    }

    /// `--vs solver` in a game with secrets: the best reply sees only its own seat's share.
    static func secretsText(_ v: BestPlay.Versus, rules: String) -> String {
        var lines = ["\(rules): the rules' bot against a best reply that knows only what its own seat is shown",
                     String(format: "%d positions; the equilibrium (best vs best) within exploitability %.1e; %.2f s",
                            v.states, v.exploitability ?? 0, v.seconds), "",
                     "seat            bot vs best    best vs best   given away"]
        for (seat, name) in v.players.enumerated() {
            let bot = v.botInSeat[seat][seat], best = v.best[seat]
            lines.append(pad(name, 16) + pad(String(format: "%.6f", bot), 15) + pad(String(format: "%.6f", best), 15)
                         + String(format: "%.6f", best - bot))
        }
        for (seat, list) in v.costliest.enumerated() where !list.isEmpty {
            lines.append("")
            lines.append("where \(v.players[seat])'s bot gives away most (a best reply to it is played by the other seat):")
            for c in list {
                lines.append(String(format: "  %.6f  ", c.loss) + "the bot plays \(c.botMove); \(c.betterMove) would do better, seeing:")
                for line in c.view.prefix(8) { lines.append("            " + line) }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `--vs FILE.lua`: a policy module in each seat against the rules' bot.
    static func text(_ v: PolicyVersus, rules: String) -> String {
        let everywhere = "every seat plays the policy: " + zip(v.players, v.policyEverywhere).map { String(format: "%@ %.6f", $0.0, $0.1) }.joined(separator: ", ")
        if v.withSecrets || v.noBot != nil {
            var lines = [v.withSecrets ? "\(rules): the equilibrium \(v.policyFile) played exactly: each seat looks its move up by its view and plays the module's probabilities"
                                       : "\(rules): the policy \(v.policyFile) in every seat",
                         String(format: "%d positions; %.2f s", v.states, v.seconds), everywhere]
            if let why = v.noBot { lines.append("(\(why))") }
            if !v.policyInSeat.isEmpty {
                lines += ["", "seat            policy vs bot  bot vs bot     gained"]
                for (seat, name) in v.players.enumerated() {
                    let policy = v.policyInSeat[seat][seat], bot = v.botOnly[seat]
                    lines.append(pad(name, 16) + pad(String(format: "%.6f", policy), 15) + pad(String(format: "%.6f", bot), 15)
                                 + String(format: "%+.6f", policy - bot))
                }
            }
            return lines.joined(separator: "\n")
        }
        return comparison("\(rules): the policy \(v.policyFile) in each seat against the rules' bot in the others",
                          states: v.states, tolerance: v.tolerance, residual: v.residual, seconds: v.seconds,
                          columns: "policy vs bot  bot vs bot     gained", differenceFormat: "%+.6f",
                          rows: v.players.indices.map { (v.players[$0], v.policyInSeat[$0][$0], v.botOnly[$0]) }, difference: { $0 - $1 })
            + "\n" + everywhere
    }

    /// A seat-by-seat table of two chances and their difference, under a heading.
    static func comparison(_ heading: String, states: Int, tolerance: Double, residual: Double, seconds: Double,
                           columns: String, differenceFormat: String, rows: [(String, Double, Double)],
                           difference: (Double, Double) -> Double) -> String {
        var lines = [heading,
                     String(format: "%d positions; value iteration to %.1e (largest change in the last sweep %.1e); %.2f s",
                            states, tolerance, residual, seconds), "",
                     "seat            " + columns]
        for (name, first, second) in rows {
            lines.append(pad(name, 16) + pad(String(format: "%.6f", first), 15) + pad(String(format: "%.6f", second), 15)
                         + String(format: differenceFormat, difference(first, second)))
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ v: PolicyVersus) -> String {
        encode(["players": v.players, "policy": v.policyFile, "policyInSeat": v.policyInSeat, "botOnly": v.botOnly,
                "policyEverywhere": v.policyEverywhere, "secrets": v.withSecrets,
                "states": v.states, "residual": v.residual, "tolerance": v.tolerance, "seconds": v.seconds] as [String: Any])
    }

    static func json(_ v: BestPlay.Versus) -> String {
        let object: [String: Any] = [
            "players": v.players, "botInSeat": v.botInSeat, "best": v.best, "states": v.states,
            "residual": v.residual, "tolerance": v.tolerance, "seconds": v.seconds, "secrets": v.withSecrets,
            "exploitability": v.exploitability as Any? ?? NSNull(),
        ]
        return JSONText.compact(object)
    }

    typealias Result = DiceHost.Odds.Result
    typealias Value = DiceHost.Odds.Value

    static func header(_ r: Result) -> String {
        var line = "\(r.rules) (\(r.rulesFile)), \(r.players.joined(separator: ", "))"
        if !r.params.isEmpty { line += ", " + r.params.joined(separator: " ") }
        return line
    }

    static func precision(_ r: Result) -> String {
        r.exact ? "exact fractions" : String(format: "doubles, every value within ±%.1e", r.errorBound)
    }

    static func decimal(_ v: Value) -> String { String(format: "%.10f", v.double) }

    static func text(_ r: Result) -> String {
        var lines = [header(r)]
        lines.append("\(r.states) positions (\(r.terminalStates) final), \(r.transitions) transitions, "
                     + "\(r.components) components (largest \(r.largestComponent)); \(precision(r))")
        lines.append(String(format: "explored in %.2f s, solved in %.2f s; memory: Lua heap %.1f MiB, process %.1f MiB",
                            r.exploreSeconds, r.solveSeconds, Double(r.luaMemoryPeak) / 1048576, Double(r.processMemoryPeak) / 1048576))
        lines.append("")
        // Decimals first: an exact fraction may run to hundreds of digits.
        lines.append(pad("outcome", 16) + pad("probability", 15) + (r.exact ? "exact" : ""))
        func row(_ title: String, _ v: Value) {
            lines.append(pad(title, 16) + pad(decimal(v), 15) + (v.exact.map(fraction) ?? ""))
        }
        for (seat, name) in r.players.enumerated() { row("\(name) wins", r.wins[seat]) }
        row("draw", r.draw)
        for (seat, name) in r.players.enumerated() { row("\(name) loses", r.losses[seat]) }
        if r.neverEnds.double > 0 { row("never ends", r.neverEnds) }
        lines.append("")
        if let rolls = r.rolls, let turns = r.turns {
            lines.append("expected rolls \(expectation(rolls)), expected turns \(expectation(turns))")
            if let d = r.rollDistribution { lines += rollHistogram(d) }
            if let d = r.turnDistribution { lines += rollHistogram(d, of: "turns") }
        } else {
            lines.append("expected rolls and turns: infinite (the bots may never end the game)")
        }
        for metric in r.metrics {
            lines.append("metric \(metric.name): expected sum \(expectation(metric.expectedSum)) per game, "
                         + "expected records \(expectation(metric.expectedCount))")
        }
        if r.droppedLastRoll { lines.append("(no hook looked into a last roll, so it is not part of a position)") }
        if r.repeatedRolls.isLarge { lines.append(r.repeatedRolls.advice) }
        return lines.joined(separator: "\n")
    }

    /// A fraction, or its size when it is too long to read (`--json` has every digit).
    static func fraction(_ q: Rational) -> String {
        let text = q.description
        return text.count <= 80 ? text : "(a fraction of \(q.numerator.description.count)/\(q.denominator.description.count) digits; --json has it)"
    }

    static func expectation(_ v: Value) -> String {
        let decimal = String(format: "%.6f", v.double)
        guard let exact = v.exact, exact.description.count <= 40 else { return decimal }
        return exact.denominator == 1 ? exact.description : "\(decimal) (\(exact))"
    }

    static func difference(_ a: Value, _ b: Value) -> String {
        if let x = a.exact, let y = b.exact {
            let d = y - x
            let text = d.description.count <= 40 ? d.description : ""
            return String(format: "%+.10f", d.doubleValue) + (text.isEmpty ? "" : " (\(text))")
        }
        return String(format: "%+.10f", b.double - a.double)
    }

    static func text(_ a: Result, comparedWith b: Result) -> String {
        var lines = ["A: " + header(a), "B: " + header(b), ""]
        lines.append(pad("", 16) + pad("A", 16) + pad("B", 16) + "B - A")
        for seat in 0..<min(a.players.count, b.players.count) {
            lines.append(pad("\(a.players[seat]) wins", 16) + pad(decimal(a.wins[seat]), 16) + pad(decimal(b.wins[seat]), 16)
                         + difference(a.wins[seat], b.wins[seat]))
        }
        lines.append(pad("draw", 16) + pad(decimal(a.draw), 16) + pad(decimal(b.draw), 16) + difference(a.draw, b.draw))
        if let ra = a.rolls, let rb = b.rolls {
            lines.append(pad("rolls", 16) + pad(String(format: "%.6f", ra.double), 16) + pad(String(format: "%.6f", rb.double), 16) + difference(ra, rb))
        }
        if let ta = a.turns, let tb = b.turns {
            lines.append(pad("turns", 16) + pad(String(format: "%.6f", ta.double), 16) + pad(String(format: "%.6f", tb.double), 16) + difference(ta, tb))
        }
        return lines.joined(separator: "\n")
    }

    static func valueObject(_ v: Value) -> [String: Any] {
        var object: [String: Any] = ["decimal": v.double]
        if let exact = v.exact { object["fraction"] = exact.description }
        return object
    }

    static func object(_ r: Result) -> [String: Any] {
        var object: [String: Any] = [
            "rules": r.rules, "rules_file": r.rulesFile, "players": r.players, "params": r.params,
            "states": r.states, "final_states": r.terminalStates, "transitions": r.transitions,
            "components": r.components, "largest_component": r.largestComponent,
            "exact": r.exact, "error_bound": r.errorBound,
            "draw": valueObject(r.draw), "never_ends": valueObject(r.neverEnds),
            "explore_seconds": r.exploreSeconds, "solve_seconds": r.solveSeconds,
            "lua_memory_peak": r.luaMemoryPeak, "process_memory_peak": r.processMemoryPeak,
            "last_roll_in_state": !r.droppedLastRoll,
            "repeated_rolls": ["positions": r.repeatedRolls.positions, "rolls_played": r.repeatedRolls.rollsPlayed,
                               "repeated_positions": r.repeatedRolls.repeatedPositions,
                               "repeated_rolls_played": r.repeatedRolls.repeatedRollsPlayed],
        ]
        object["wins"] = Dictionary(uniqueKeysWithValues: r.players.enumerated().map { ($0.element, valueObject(r.wins[$0.offset])) })
        object["losses"] = Dictionary(uniqueKeysWithValues: r.players.enumerated().map { ($0.element, valueObject(r.losses[$0.offset])) })
        if let rolls = r.rolls { object["rolls"] = valueObject(rolls) }
        if let d = r.rollDistribution {
            var o: [String: Any] = ["probability": d.probability, "unfinished": d.unfinished]
            if let m = d.median { o["median"] = m }
            if let p = d.percentile90 { o["percentile90"] = p }
            object["rolls_distribution"] = o
        }
        if let d = r.turnDistribution {
            var o: [String: Any] = ["probability": d.probability, "unfinished": d.unfinished]
            if let m = d.median { o["median"] = m }
            if let p = d.percentile90 { o["percentile90"] = p }
            object["turns_distribution"] = o
        }
        if let turns = r.turns { object["turns"] = valueObject(turns) }
        object["metrics"] = Dictionary(uniqueKeysWithValues: r.metrics.map {
            ($0.name, ["expected_sum": valueObject($0.expectedSum), "expected_count": valueObject($0.expectedCount)])
        })
        return object
    }

    static func encode(_ object: Any) -> String { JSONText.compact(object) }

    static func json(_ r: Result) -> String { encode(object(r)) }
    static func json(_ a: Result, comparedWith b: Result) -> String { encode(["a": object(a), "b": object(b)]) }

    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(1, width - text.count))
    }
}

import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Solve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Best play: each seat's chance of winning when every seat plays its best.",
            discussion: """
                Follows every position any sequence of legal moves can reach: roll (every
                outcome of the declared dice) and every declared action with each of its
                declared choices (values, argument tuples, or a function of the position);
                a move the rules refuse from a position (error(msg, 0)) is not legal there.
                An action that takes arguments without declared choices is refused, naming
                it.

                A game where everyone sees everything: each player maximises their own
                probability of winning (two players: optimal play of the zero-sum game; more:
                each seat for itself, no coalitions); cycles by value iteration to --tolerance.

                A game with a view (players hide things) is solved as a game with secrets: an
                equilibrium over what each seat has been shown (its views and the events it
                received; its view alone where the rules declare view_is_complete = true), by
                CFR+ until the exploitability - what best replies that see only their own
                seat's information could still gain, per seat, in chances of winning - is at
                most --exploitability, or --iterations. Two players: the Nash value and the
                bracket that holds it; more: an approximate equilibrium with its NashConv.
                --open solves it as if every cup were open instead (labelled so).

                Fields the rules keep only for statistics (rules{ statistics = {"rolls"} }:
                of g.state and of each player) are left out of positions, each holding its
                starting value; the promise is checked on 16 sampled games, and a script
                whose play reads them is refused.

                Under unordered_dice, keeps of a position that end with the same values
                share one play: where a keep leads must depend on those values, not on
                which dice were kept (r.kept may allow or refuse a keep as a whole). Each
                keep's first outcome, and every outcome on one position in \(BestPlay.keptRollCheckEvery), is played and
                checked; a difference starts the search again playing every keep (the
                report says so). --every-keep plays every keep from the start.

                The rules' bot is not asked. Exits 1 when the game is not analysable or reaches
                a limit (--max-states, --max-memory, --max-roll-outcomes: the message names the
                flag that raises it); Ctrl-C stops CFR+ and reports the strategy so far.
                """
        )

        @Argument(help: "The rule script, e.g. examples/rules/pig.lua.")
        var rules: String

        @OptionGroup var table: TableOptions

        @OptionGroup var limits: ExplorationLimits

        @Option(help: "The most outcomes one roll may have (each is played from every position that rolls; 46656 is 6d6).")
        var maxRollOutcomes = DiceHost.Odds.defaultMaxRollOutcomes

        @Option(help: "Stop value iteration once no value changes by more than this in a sweep.")
        var tolerance = 1e-12

        @Flag(help: "A game with a view: solve it as if everyone saw everything (every cup open), not as a game with secrets.")
        var open = false

        @Flag(help: "Under unordered_dice: play every outcome of every keep, instead of once per set of values a position's keeps end with.")
        var everyKeep = false

        @Option(help: "A game with secrets: stop once the exploitability (in chances of winning, per seat) is at most this.")
        var exploitability = 1e-4

        @Option(help: "A game with secrets: the most CFR+ iterations.")
        var iterations = 100_000

        @Option(help: "One solve per value of a param, e.g. --sweep bluff_rounds=1..4 (each seat's chance under best play or the equilibrium, the fairest value marked).")
        var sweep: String?

        @Option(help: "With --sweep: also draw the rows as an SVG line chart into this file.")
        var chart: String?

        @Option(help: "Write the best-play policy as a Lua module a rule script's bot can require (with secrets: move probabilities keyed by the seat's view).")
        var policy: String?

        @Flag(help: "Also print the policy compactly: for Pig-like games the hold threshold by both scores, else the best moves by each field's value.")
        var explain = false

        @Flag(help: "Print the result as JSON.")
        var json = false

        @Flag(help: "No progress line on standard error.")
        var quiet = false

        func run() throws {
            var options = BestPlay.Options()
            do {
                options.params = table.params
                guard tolerance > 0, tolerance < 1 else {
                    throw GameOptions.UsageError(description: "--tolerance must be between 0 and 1 (e.g. 1e-12), got \(tolerance)")
                }
                options.maxStates = limits.maxStates
                options.maxMemory = try limits.memoryBytes()
                guard (1...DiceHost.Odds.maxRollOutcomesCeiling).contains(maxRollOutcomes) else {
                    throw GameOptions.UsageError(description: "--max-roll-outcomes must be 1 to \(DiceHost.Odds.maxRollOutcomesCeiling), got \(maxRollOutcomes)")
                }
                options.maxRollOutcomes = maxRollOutcomes
                options.tolerance = tolerance
                options.writesPolicy = policy != nil
                options.explains = explain
                options.open = open
                options.sharesKeptRolls = !everyKeep
                guard exploitability > 0, exploitability < 1 else {
                    throw GameOptions.UsageError(description: "--exploitability must be between 0 and 1 (e.g. 1e-4), got \(exploitability)")
                }
                guard iterations >= 1 else { throw GameOptions.UsageError(description: "--iterations must be at least 1, got \(iterations)") }
                options.equilibrium.exploitability = exploitability
                options.equilibrium.iterations = iterations
                options.equilibrium.shouldStop = { StopRequest.requested }
            } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            options.players = try table.playerNames(rules: rules)
            StopRequest.install()
            defer { StopRequest.uninstall() }
            if let sweep {
                guard policy == nil, !explain else {
                    printError("dicehost: --sweep solves once per value: it writes no --policy and has no --explain")
                    throw ExitStatus.usage
                }
                try runSweep(sweep, options)
                return
            }
            if chart != nil {
                printError("dicehost: --chart draws a --sweep; add --sweep param=first..last")
                throw ExitStatus.usage
            }
            let outcome = try AnalysisProgress.run(rules, quiet: quiet) { progress in
                try BestPlay.analyse(rulesFile: rules, options: options, progress: progress)
            }
            let module: String?
            switch outcome {
            case .open(let result): module = result.policyModule
            case .secrets(let result): module = result.policyModule
            }
            if let policy, let module {
                let isOurs = !FileManager.default.fileExists(atPath: policy) || PolicyFileHeader.read(file: policy) != nil
                do {
                    try SafeFileWriter(protectedPaths: [rules], force: isOurs).write(module, to: policy)
                } catch {
                    printError("dicehost: --policy: \(error)")
                    throw ExitStatus.failure
                }
            }
            switch outcome {
            case .open(let result):
                print(json ? SolveReport.json(result) : SolveReport.text(result))
                if !json, let explanation = result.explanation { print("\n" + SolveReport.explain(explanation)) }
            case .secrets(let result):
                if explain { printError("dicehost: --explain tells the best play of games where everyone sees everything; not shown for a game with secrets") }
                print(json ? EquilibriumReport.json(result) : EquilibriumReport.text(result))
            }
        }
    }
}

extension DiceHostCommand.Solve {
    /// `--sweep k=a..b[:step]`: one solve per value, each seat's chance under best play (an
    /// equilibrium in a game with secrets), the fairest value marked: which param makes a
    /// bluffing game fair when both sides play well.
    func runSweep(_ text: String, _ options: BestPlay.Options) throws {
        let plan: Sweep
        do { plan = try Sweep.parse(text) } catch {
            printError("dicehost: \(error)")
            throw ExitStatus.usage
        }
        var rows: [Sweep.Row] = []
        var notes: [String] = []
        var extras: [[String: Any]] = []
        var name = rules
        var players: [String] = []
        var withSecrets = false
        for value in plan.values {
            if StopRequest.requested { break }
            var each = options
            each.params = options.params.filter { $0.0 != plan.param } + [(plan.param, String(value))]
            let outcome = try AnalysisProgress.run(rules, quiet: quiet) { progress in
                try BestPlay.analyse(rulesFile: rules, options: each, progress: { progress("\(plan.param)=\(value): \($0)") })
            }
            switch outcome {
            case .open(let r):
                name = r.rules; players = r.players
                rows.append(Sweep.Row(value: value, wins: r.wins, length: nil))
                extras.append(["converged": r.converged])
                if !r.converged { notes.append("\(plan.param)=\(value): value iteration NOT converged") }
            case .secrets(let r):
                name = r.rules; players = r.players; withSecrets = true
                rows.append(Sweep.Row(value: value, wins: r.wins, length: nil))
                extras.append(["exploitability": r.exploitability, "stoppedBy": r.stoppedBy.rawValue, "iterations": r.iterations])
                notes.append(String(format: "%@=%d: exploitability %.1e after %d iterations%@", plan.param, value, r.exploitability, r.iterations,
                                    r.stoppedBy.reachedTarget ? "" : " (NOT at the target)"))
            }
        }
        let kind = withSecrets ? "the equilibrium of the game with secrets" : "best play by every seat"
        if let chart {
            try Sweep.writeChart(rows, players: players, param: plan.param, title: "\(name): win probability by \(plan.param) (\(kind))",
                                 to: chart, rules: rules)
        }
        if json {
            print(Sweep.json(rows, players: players, param: plan.param, fields: ["secrets": withSecrets], extra: { extras[$0] }))
        } else {
            print("\(name) (\(rules)): each seat's chance under \(kind), by \(plan.param)")
            print(Sweep.table(rows, players: players, param: plan.param, lengthTitle: ""))
            if !notes.isEmpty { print("\n" + notes.joined(separator: "\n")) }
        }
    }
}

/// How `dicehost solve` shows a result.
enum SolveReport {
    static func text(_ r: BestPlay.Result) -> String {
        var head = "\(r.rules) (\(r.rulesFile)), \(r.players.joined(separator: ", "))"
        if !r.params.isEmpty { head += ", " + r.params.joined(separator: " ") }
        var lines = [head, "best play: each player maximises their own chance of winning"
                     + (r.players.count > 2 ? " (each seat for itself; no coalitions)" : "")]
        if r.everyoneSeesEverything {
            lines.append("everyone sees everything (--open): every cup is open to every seat, which is not the game as played")
        }
        lines.append("\(r.states) positions, \(r.decisions) where a player decides, \(r.moves) legal moves")
        if let note = statisticsNote(r.forgotStatistics) { lines.append(note) }
        if let note = keptRollsNote(shared: r.sharedKeptRolls, unshared: r.everyKeepPlayedBecause) { lines.append(note) }
        lines.append(String(format: "value iteration: %d sweeps, largest change in the last %.1e (tolerance %.1e)%@",
                            r.sweeps, r.residual, r.tolerance, r.converged ? "" : " — NOT converged: raise the sweeps or loosen --tolerance"))
        lines.append(String(format: "explored in %.2f s, solved in %.2f s; memory: Lua heap %.1f MiB, process %.1f MiB",
                            r.exploreSeconds, r.solveSeconds, Double(r.luaMemoryPeak) / 1048576, Double(r.processMemoryPeak) / 1048576))
        lines.append("")
        lines.append("seat            win under best play")
        for (seat, name) in r.players.enumerated() {
            lines.append(name.padding(toLength: max(16, name.count + 1), withPad: " ", startingAt: 0) + String(format: "%.6f", r.wins[seat]))
        }
        if r.draw > 0 { lines.append("draw".padding(toLength: 16, withPad: " ", startingAt: 0) + String(format: "%.6f", r.draw)) }
        if r.loss > 0 { lines.append("loses".padding(toLength: 16, withPad: " ", startingAt: 0) + String(format: "%.6f", r.loss)) }
        if r.neverEnds > 1e-9 { lines.append("never ends".padding(toLength: 16, withPad: " ", startingAt: 0) + String(format: "%.6f", r.neverEnds)) }
        if let first = r.firstMove { lines.append("\nbest first move: \(first)") }
        if !r.moveCounts.isEmpty {
            lines.append("best moves by position: " + r.moveCounts.prefix(8).map { "\($0.0) \($0.1)" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    /// The line that says how keeps ending with the same values were played (unordered_dice).
    static func keptRollsNote(shared: Int, unshared: String?) -> String? {
        if let unshared { return "unordered_dice: \(unshared)" }
        guard shared > 0 else { return nil }
        return "unordered_dice: keeps ending with the same values shared one play (\(shared) outcomes not played again; "
            + "each keep's first outcome, and every outcome on one position in \(BestPlay.keptRollCheckEvery), played and checked; --every-keep plays all)"
    }

    /// The line that says which `rules.statistics` fields positions left out.
    static func statisticsNote(_ fields: [String]) -> String? {
        guard !fields.isEmpty else { return nil }
        return "statistics kept out of positions (rules.statistics, checked on \(BestPlay.statisticsSampleGames) sampled games): "
            + fields.joined(separator: ", ")
    }

    static func json(_ r: BestPlay.Result) -> String {
        var object: [String: Any] = [
            "rules": r.rules, "rulesFile": r.rulesFile, "players": r.players, "params": r.params,
            "wins": Dictionary(uniqueKeysWithValues: zip(r.players, r.wins)), "winsBySeat": r.wins,
            "draw": r.draw, "loss": r.loss, "neverEnds": r.neverEnds, "everyoneSeesEverything": r.everyoneSeesEverything, "states": r.states, "decisions": r.decisions, "moves": r.moves,
            "sweeps": r.sweeps, "residual": r.residual, "tolerance": r.tolerance, "converged": r.converged,
            "droppedLastRoll": r.droppedLastRoll, "forgotStatistics": r.forgotStatistics, "sharedKeptRolls": r.sharedKeptRolls, "exploreSeconds": r.exploreSeconds, "solveSeconds": r.solveSeconds,
            "luaMemoryPeak": r.luaMemoryPeak, "processMemoryPeak": r.processMemoryPeak,
            "moveCounts": Dictionary(uniqueKeysWithValues: r.moveCounts.map { ($0.0, $0.1) }),
        ]
        if let first = r.firstMove { object["firstMove"] = first }
        if let unshared = r.everyKeepPlayedBecause { object["everyKeepPlayedBecause"] = unshared }
        if let e = r.explanation { object["explain"] = explainObject(e) }
        return JSONText.compact(object)
    }

    /// `--explain`: the threshold table of a Pig-like game, else the moves by field value.
    static func explain(_ e: PolicyExplanation) -> String {
        if let t = e.threshold { return threshold(t) }
        var lines = ["best moves of the \(e.positions) positions where a player decides, by the value of each field "
                     + "(me: the player deciding; fields with one value left out):"]
        if e.byField.isEmpty { lines.append("  (no field takes more than one value)") }
        for field in e.byField {
            lines.append("  \(field.field):")
            for (value, moves) in field.values.prefix(16) {
                lines.append("    " + OddsReport.pad(value, 10) + moves.map { "\($0.0) \($0.1)" }.joined(separator: ", "))
            }
            if field.values.count > 16 { lines.append("    (\(field.values.count - 16) more values)") }
        }
        return lines.joined(separator: "\n")
    }

    static func threshold(_ t: PolicyExplanation.Threshold) -> String {
        let width = t.largestScore < 20 ? 1 : (t.largestScore + 10) / 10
        // Only buckets holding a score the game reaches (Pig never has a score of 1).
        let reached = Set(t.cells.keys).union(t.cells.values.flatMap(\.keys))
        let buckets = stride(from: 0, through: t.largestScore, by: width).filter { b in (b..<b + width).contains { reached.contains($0) } }
        func label(_ from: Int) -> String { width == 1 ? String(from) : "\(from)-\(from + width - 1)" }
        // The cell at the lowest scores of a bucket that the game reaches.
        func cell(_ i0: Int, _ j0: Int) -> (at: Int?, clean: Bool)? {
            for i in i0..<i0 + width { for j in j0..<j0 + width { if let c = t.cells[i]?[j] { return c } } }
            return nil
        }
        let column = max(6, label(buckets.last ?? 0).count + 1)
        // A table of dashes alone reads like a failure: say why there is nothing to show.
        let never = t.cells.values.allSatisfy { $0.values.allSatisfy { $0.at == nil } }
        if never {
            return "best play never \(t.action)s: wherever a player decides, rolling on wins at least as often as '\(t.action)', "
                + "at every \(t.turnField) and \(t.scoreField), so there is no threshold to show: '\(t.action)' pays only where the risk "
                + "of losing \(t.turnField) outweighs the chance of winning within the turn; in this game it never does."
        }
        var lines = ["best play: \(t.action) once \(t.turnField) reaches the number shown, by \(t.scoreField) "
                     + "(rows: mine, columns: the opponent's" + (width > 1 ? "; each cell at the lowest scores of its bucket" : "") + ")",
                     "'-': never \(t.action), roll on; '*': rolling and \(t.action) interleave above the number", ""]
        lines.append(OddsReport.pad("me \\ opp", 10) + buckets.map { $0 == buckets.last ? label($0) : OddsReport.pad(label($0), column) }.joined())
        for i in buckets {
            var line = OddsReport.pad(label(i), 10)
            for j in buckets {
                let text: String
                if let c = cell(i, j) { text = (c.at.map(String.init) ?? "-") + (c.clean ? "" : "*") } else { text = "" }
                line += j == buckets.last ? text : OddsReport.pad(text, column)
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    static func explainObject(_ e: PolicyExplanation) -> [String: Any] {
        if let t = e.threshold {
            var cells: [String: [String: Any]] = [:]
            for (i, row) in t.cells {
                for (j, c) in row {
                    cells[String(i), default: [:]][String(j)] = ["at": c.at.map { $0 as Any } ?? NSNull(), "clean": c.clean]
                }
            }
            return ["action": t.action, "turnField": t.turnField, "scoreField": t.scoreField, "threshold": cells]
        }
        return ["byField": Dictionary(uniqueKeysWithValues: e.byField.map { f in
            (f.field, Dictionary(uniqueKeysWithValues: f.values.map { ($0.value, Dictionary(uniqueKeysWithValues: $0.moves.map { ($0.0, $0.1) })) }))
        })]
    }
}

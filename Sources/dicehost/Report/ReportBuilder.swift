import DiceHost
import Foundation

/// Computes a `ReportDocument` for one rule script within a time budget: each section
/// chooses exact analysis where the game is small enough to finish in its share of the
/// budget, and sampling where it is not, and says which it chose; a section that cannot
/// be computed says why in one line.
final class ReportBuilder {
    let rulesFile: String
    let players: [String]
    let params: [(String, String)]
    let budget: Double
    let seed: UInt64
    let progress: (String) -> Void
    let started = Date()

    /// Positions explored per second before any is measured (the debug build on a busy
    /// two-core machine explores Pig at about 500/s); the exploration caps come from it,
    /// or from the rate the first exploration measured, so an exact section fits its
    /// share of the budget, and what does not fit is sampled.
    static let positionsPerSecond = 1_000.0
    var measuredRate: Double?
    var rate: Double { measuredRate ?? Self.positionsPerSecond }

    /// What was found on the way, shared by the sections.
    var ruleSet: RuleSet?
    var loadError: String?
    var odds: Odds.Result?
    var oddsWhyNot: String?
    var simulation: SimulationResult?
    var simulationWhyNot: String?
    var graph: BestPlay.BotGraph?
    var graphWhyNot: String?
    var chain: ReportChain? { graph.map { ReportChain(graph: $0) } }
    var botValues: ReportChain.Values?
    var versusWithSecrets: BestPlay.Versus?

    init(rulesFile: String, players: [String], params: [(String, String)], budget: Double, seed: UInt64 = 1,
         progress: @escaping (String) -> Void) {
        self.rulesFile = rulesFile
        self.players = players
        self.params = params
        self.budget = budget
        self.seed = seed
        self.progress = progress
    }

    var elapsed: Double { Date().timeIntervalSince(started) }
    /// Seconds left of the budget (never below a small floor: every section gets a try).
    var left: Double { max(budget - elapsed, 0.05 * budget) }
    func deadline(share: Double) -> Date { Date().addingTimeInterval(left * share) }

    var hasBot: Bool { ruleSet?.hooks.contains("bot") ?? false }
    /// Without a bot a player only rolls: figures "under the bots" mean something only
    /// when rolling is all a player can do.
    var botsPlayTheGame: Bool { hasBot || (ruleSet?.actions.isEmpty ?? false) }
    var noBotLine: String { "the rules have no bot(g, p), and a player without one only rolls (the game declares actions: \(ruleSet?.actions.joined(separator: ", ") ?? ""))" }

    func build(sweep: Sweep? = nil) -> ReportDocument {
        var document = ReportDocument(rules: rulesFile, rulesFile: rulesFile, players: players,
                                      params: params.map { "\($0.0)=\($0.1)" }, budget: budget)
        do {
            let game = try Game(rulesFile: rulesFile, players: players, params: params)
            ruleSet = game.rules
            document.rules = game.rules.name
        } catch {
            loadError = "\(error)"
        }
        if let loadError {
            let why = "the rule script does not load: \(loadError)"
            document.sections = [.missing(.fairness, why), .missing(.length, why), .missing(.skill, why),
                                 .missing(.decisions, why), .missing(.drama, why), health()]
            document.seconds = elapsed
            return document
        }
        progress("fairness and length under the bots")
        findOdds()
        var fairness = self.fairness()
        if let sweep { addSweep(sweep, to: &fairness) }
        let length = self.length()
        progress("best play, the bots and a random player")
        findGraph()
        let skill = self.skill()
        let decisions = self.decisions()
        progress("drama: games walked through the positions")
        let drama = self.drama()
        progress("health: rule tests, coverage, a short fuzz")
        let health = self.health()
        document.sections = [fairness, length, skill, decisions, drama, health]
        document.seconds = elapsed
        return document
    }

    /// Exact odds under the bots when the positions fit the first third of the budget,
    /// else a simulation sized to the time it has.
    func findOdds() {
        guard botsPlayTheGame else {
            oddsWhyNot = noBotLine
            simulationWhyNot = noBotLine
            return
        }
        var options = Odds.Options()
        options.players = players
        options.params = params
        options.maxStates = max(200, Int(rate * left * 0.3))
        options.exactStateLimit = min(options.exactStateLimit, 20_000)
        options.maxMemory = 2 << 30
        do {
            let found = try Odds.analyse(rulesFile: rulesFile, options: options, progress: nil)
            odds = found
            if found.exploreSeconds >= 1 { measuredRate = Double(found.states) / max(found.exploreSeconds, 0.01) }
        } catch OddsError.tooManyStates(let limit, _, _) {
            oddsWhyNot = "more than \(limit) positions under the bots: more than fits the budget (\(Int(budget)) s) exactly"
        } catch {
            oddsWhyNot = "\(error)"
        }
        if odds == nil { simulate(share: 0.3) }
    }

    /// Plays games with the bots: a pilot to time one, then as many as `share` of the
    /// time left allows (at least 200, at most 200,000).
    func simulate(share: Double) {
        let seconds = left * share
        do {
            var pilot = Simulation.Plan(rulesFile: rulesFile, players: players, games: 100, seed: seed)
            pilot.params = params
            pilot.moveLimit = 5_000
            let first = try Simulation.run(pilot)
            let perGame = max(first.seconds, 1e-3) / Double(max(first.games, 1))
            let games = min(200_000, max(200, Int(seconds / perGame)))
            var plan = pilot
            plan.games = games
            simulation = try Simulation.run(plan)
        } catch {
            simulationWhyNot = "\(error)"
        }
    }

    /// Every position legal moves reach, with the bot's move in each, when it fits.
    func findGraph() {
        var options = BestPlay.Options()
        options.players = players
        options.params = params
        // Half of what is left: the sections after it stop their iterations at deadlines.
        options.maxStates = max(200, Int(rate * left * 0.5))
        options.maxMemory = 2 << 30
        do {
            let found = try BestPlay.botGraph(rulesFile: rulesFile, options: options)
            graph = found
            if botsPlayTheGame && !found.botDrawsRandom {
                botValues = ReportChain(graph: found).values(Array(repeating: .bot, count: found.players.count), deadline: deadline(share: 0.1))
            }
        } catch OddsError.tooManyStates(let limit, _, _) {
            graphWhyNot = "more than \(limit) positions reached by legal moves: more than fits the budget (\(Int(budget)) s)"
        } catch {
            graphWhyNot = "\(error)"
        }
    }
}

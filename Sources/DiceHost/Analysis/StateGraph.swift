/// The game's positions under its bots, as an absorbing Markov chain: found by putting
/// each position back into a live game (`StateCodec`), asking the bot what it does, and
/// for a roll forcing every outcome of the declared dice in turn.
///
/// Position numbers start at 1 (the start). A position is terminal (a win, a draw) or
/// transient with edges: target, weight out of the position's `denominator` (sides^dice
/// for a roll, 1 for an action), and what the step adds: rolls, turns, recorded metrics.
final class StateGraph {
    /// How a game ended: a seat won, a draw, or a lone player lost (nobody won).
    enum Terminal: Equatable { case win(seat: Int), draw, loss }

    /// Per position (index = number − 1): nil while unexplored or transient.
    var terminal: [Terminal?] = []
    /// Per position, its edges are edgeTarget[edgeStart[i]..<edgeStart[i + 1]] (transient only).
    var edgeStart: [Int] = [0]
    var edgeTarget: [Int32] = []
    var edgeWeight: [Int32] = []
    var denominator: [Int32] = []
    /// Per position, Σ weight × (rolls made, turns begun) over its edges.
    var rollsWeight: [Int32] = []
    var turnsWeight: [Int32] = []
    /// Per edge, the turns its step began (capped at 255), for the distribution of turns;
    /// outcomes that reach one position with different counts are separate edges.
    var edgeTurns: [UInt8] = []
    /// Per position, its metric records: metricEntries[metricStart[i]..<metricStart[i + 1]].
    var metricStart: [Int] = [0]
    var metricEntries: [(metric: Int32, weight: Int32, value: Double)] = []
    var metricNames: [String] = []
    /// What the start itself did: the first turn and any metric setup recorded.
    var initialTurns = 0
    var initialMetrics: [(metric: Int32, value: Double)] = []
    /// Whether the players' `last_roll` was left out of positions (see `StateCodec`).
    var droppedLastRoll = false
    /// The `rules.statistics` fields positions left out (held at their starting values).
    var forgotStatistics: [String] = []
    /// Rolls that only reached what another position's rolls had (see `RepeatedRolls`).
    var repeatedRolls = RepeatedRollCounter()

    var count: Int { terminal.count }
    var transitions: Int { edgeTarget.count }

    func edges(of state: Int) -> Range<Int> { edgeStart[state]..<edgeStart[state + 1] }
}

import Foundation

/// One game of a simulation as it ended: what `dicehost sim --csv` writes a row of.
/// A plan's `gameFinished` receives one per game, on the worker thread that played it.
public struct SimulatedGame: Sendable {
    public enum Ending: Sendable, Equatable {
        case win(String), draw, loss(String), unfinished, error
    }

    public var index: Int
    public var seed: UInt64
    public var ending: Ending
    public var rolls: Int
    public var turns: Int
    /// Each metric `g:record`ed in the game, summed over the game.
    public var metrics: [String: Double]

    init(index: Int, seed: UInt64, game: Game, failed: Bool) {
        self.index = index
        self.seed = seed
        switch (failed, game.outcome) {
        case (true, _): ending = .error
        case (false, .win(let p)?): ending = .win(p)
        case (false, .draw?): ending = .draw
        case (false, .loss(let p)?): ending = .loss(p)
        case (false, nil): ending = .unfinished
        }
        rolls = game.rollCount
        turns = game.turnCount
        var sums: [String: Double] = [:]
        for (name, value) in game.metrics { sums[name, default: 0] += value }
        metrics = sums
    }
}

/// Asks a running simulation to stop early (Ctrl-C): workers finish the block of games
/// they are playing and take no more. Safe to call from any thread.
public final class SimulationStop: @unchecked Sendable {
    private let lock = NSLock()
    private var requested = false

    public init() {}

    public func request() { lock.lock(); requested = true; lock.unlock() }
    public var isRequested: Bool { lock.lock(); defer { lock.unlock() }; return requested }
}

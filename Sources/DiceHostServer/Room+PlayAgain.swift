import DiceHost
import Foundation

/// Another game in the same room: once a game is over each player says `ready` (the old
/// `restart` is read as `ready`); the next game starts when every seated player who has
/// not left is ready, or when the play-again clock runs out with at least the rules'
/// minimum of players ready. The seats stay as they are: a seat whose player left is
/// played by the rules' bot.
extension Room {
    /// Starts the next game if every player who has not left is ready.
    func startNextGameIfAllReady() throws {
        let present = seats.filter { !$0.left }
        guard !present.isEmpty, present.allSatisfy(\.ready) else { return }
        try startNextGame()
    }

    /// After a seat left: the players still here may all be ready already.
    func startNextGameIfReady() {
        guard let game, game.isOver || abandoned, seats.contains(where: \.ready) else { return }
        do { try startNextGameIfAllReady() } catch {
            broadcast(errorMessage(.ruleError, publicText("the next game could not start: \(error)")))
        }
        broadcastPending(cause: ServerMessage.object([("input", .string("ready"))]))
    }

    /// The play-again clock ran out: another game when enough players are ready.
    func playAgainClockRanOut() -> String? {
        playAgainClockSpent = true
        guard seats.filter({ $0.ready }).count >= max(1, entry.rules.minPlayers) else { return nil }
        do { try startNextGame() } catch {
            broadcast(errorMessage(.ruleError, publicText("the next game could not start: \(error)")))
            return nil
        }
        return ServerMessage.object([("input", .string("ready"))])
    }

    /// The same game from its start again (the room log's `restart`), on a fresh clock.
    private func startNextGame() throws {
        guard let game else { return }
        let events = try game.apply(GameInput(.restart)).appliedEvents()
        origin = ContinuousClock.now
        if abandoned {
            abandoned = false
            journalAbandoned()
        }
        blockedBy = nil
        playAgainClockSpent = false
        turnClock = nil
        for index in seats.indices {
            if seats[index].ready {
                seats[index].ready = false
                journalSeatStatus(index)
            }
            seats[index].timedOut = false
        }
        record(GameInput(.restart), time: game.now, events: events)
    }
}

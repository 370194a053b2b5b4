import Lua

/// Turn order: a roll or an action comes from the player whose turn it is, unless the
/// rules let that input come at any time (`rules.anytime = {"snap"}`): Snap's `snap`,
/// a bid anyone may raise. An input by another player is refused before any hook runs:
/// "it is Ann's turn, not Bob's".
extension Game {
    /// Refuses `input` ("roll" or an action name) by the player in `seat` when it is
    /// another player's turn and the rules do not list `input` in `anytime`. A game with
    /// no current player (`g.current` nil) takes inputs from anyone.
    func checkTurn(seat: Int, input: String) throws {
        guard !rules.anytime.contains(input), case .table(let current) = lua.get(g, "current"),
              let currentSeat = lua.get(current, "seat").intValue, currentSeat != seat, isSeat(currentSeat) else { return }
        throw GameError.refused("it is \(playerNames[currentSeat - 1])'s turn, not \(playerNames[seat - 1])'s")
    }
}

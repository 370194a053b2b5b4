import DiceHost

extension SeatView {
    /// The rules' table for `viewer` as JSON (Game.table: made from the seat's view, never
    /// from the whole game), nil without a `table` hook; `{"error":…}` when the hook fails
    /// or returns something outside the vocabulary - the page then draws the view alone,
    /// and the room plays on.
    static func tableJSON(_ game: Game, for viewer: String?) -> String? {
        guard game.hasTable else { return nil }
        do { return try game.table(for: viewer)?.description } catch {
            return "{\"error\":\(GameEvent.quote("table: \(error)"))}"
        }
    }
}

import DiceHost

extension SeatView {
    /// The rules' view and table for `viewer` as JSON from one look at the game (one call
    /// of the view hook: `Game.viewAndTable`; the table is made from the seat's view, never
    /// from the whole game). A failing hook, or a table outside the vocabulary, reads as
    /// `{"error":…}` in its place - the page then draws the view alone and the room plays
    /// on. Seats with equal views share one text (`WrittenViews`).
    static func viewAndTableJSON(_ game: Game, for viewer: String?, written: inout WrittenViews) -> (view: String, table: String?) {
        let (view, table) = game.viewAndTableText(for: viewer)
        return lookJSON(view: view, table: table, written: &written)
    }

    /// The views and tables of several seats at once (`Game.viewsAndTables`: a view the
    /// same for every seat is made once), keyed by viewer.
    static func viewsAndTablesJSON(_ game: Game, for viewers: [String?], written: inout WrittenViews) -> [String?: (view: String, table: String?)] {
        var looks: [String?: (view: String, table: String?)] = [:]
        for (viewer, look) in zip(viewers, game.viewsAndTablesText(for: viewers)) {
            looks[viewer] = lookJSON(view: look.view, table: look.table, written: &written)
        }
        return looks
    }

    private static func lookJSON(view: Result<String, any Error>, table: Result<String, any Error>?, written: inout WrittenViews) -> (view: String, table: String?) {
        let tableText: String?
        switch table {
        case .success(let text)?: tableText = text
        case .failure(let error)?: tableText = "{\"error\":\(GameEvent.quote("table: \(error)"))}"
        case nil: tableText = nil
        }
        switch view {
        case .failure(let error):
            return ("{\"error\":\(GameEvent.quote("view: \(error)"))}", tableText)
        case .success(let text):
            if let known = written.first(where: { $0 == text }) { return (known, tableText) }
            written.append(text)
            return (text, tableText)
        }
    }
}

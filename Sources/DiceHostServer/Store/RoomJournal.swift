import DiceHost

/// A room's side of the store: the room stages what it changes (seats, the game's start,
/// each input with its events) as it goes, then commits it as one list and, before it
/// acknowledges the input or sends the events, waits for the list's ticket. Used on the
/// room's actor only.
final class RoomJournal {
    let room: String
    let commits: GroupCommit
    private var staged: [StoreWrite] = []
    /// Inputs written so far (the next one is numbered one more).
    private(set) var inputCount: Int64
    /// The ticket of the last list committed (0: none yet).
    private(set) var lastTicket: UInt64 = 0

    init(room: String, commits: GroupCommit, inputCount: Int64 = 0) {
        self.room = room
        self.commits = commits
        self.inputCount = inputCount
    }

    var hasStaged: Bool { !staged.isEmpty }

    func stage(_ write: StoreWrite) { staged.append(write) }

    func start(_ game: Game) {
        stage(.start(room: room, header: GameLog.line(GameLog.Header(game: game))))
    }

    func input<S: Sequence>(_ line: String, kind: StoredInput.Kind = .line, time: Int, events: S) where S.Element == GameEvent {
        inputCount += 1
        stage(.input(room: room, StoredInput(n: inputCount, line: line, time: Int64(time), events: GameLog.line(events.map(GameLog.json)), kind: kind)))
    }

    /// Hands what is staged (and `also`) to the group commit as one list; the ticket to
    /// wait for (the last one when nothing was staged).
    @discardableResult
    func commit(also: [StoreWrite] = []) -> UInt64 {
        let writes = staged + also
        staged = []
        guard !writes.isEmpty else { return lastTicket }
        lastTicket = commits.enqueue(writes)
        return lastTicket
    }

    /// Everything committed so far is written (or failed): nothing to wait for.
    var isSettled: Bool { commits.isSettled(lastTicket) }
}

import Foundation

/// The rooms an SQLite store held unfinished when the server started, reopened after it
/// listens rather than before: a room is replayed from every input it ever had, so reopening
/// them all first made the server's start grow with the rooms' age (8–9 s after 90 s of 100
/// rooms). The server reads only the rooms and their seats before it listens; then the rooms
/// are reopened one after another, and a client asking for one not reopened yet has it
/// reopened at once and waits for it (`Lobby.room`), not for the others.
actor StartupRestore {
    /// What happened, in order, for the operator's report and the tests: `listening`, then
    /// `reopened ROOM` or `closed ROOM` as each room is done.
    private(set) var log: [String] = []
    /// Rooms not started yet, in the order they are reopened (oldest first).
    private var waiting: [StoredRoom]
    private var running: [String: Task<Void, Never>] = [:]
    private let reopen: @Sendable (StoredRoom) async -> RoomRestorer.Outcome
    private var outcome = RoomRestorer.Outcome()
    private var all: Task<Void, Never>?

    /// `reopen`: reads a room's inputs and replays it into the lobby.
    init(rooms: [StoredRoom], reopen: @escaping @Sendable (StoredRoom) async -> RoomRestorer.Outcome) {
        waiting = rooms
        self.reopen = reopen
    }

    /// Whether room `id` is one of the stored rooms not reopened yet (or being reopened).
    func holds(_ id: String) -> Bool {
        running[id] != nil || waiting.contains { $0.id == id }
    }

    /// Reopens room `id` now if it has not started yet, and returns once it is done.
    func restore(_ id: String) async {
        if let task = running[id] { return await task.value }
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        await start(waiting.remove(at: index)).value
    }

    /// The server listens: every room is reopened from now on, in order (`report` is told
    /// the outcome once all are).
    func begin(report: @escaping @Sendable (RoomRestorer.Outcome) -> Void) {
        log.append("listening")
        all = Task {
            while !Task.isCancelled, let next = self.takeNext() {
                await self.start(next).value
            }
            report(self.outcome)
        }
    }

    /// Stops reopening rooms (the server stops).
    func cancel() { all?.cancel() }

    /// Waits until every room was reopened (or closed), for the tests.
    func finished() async { await all?.value }

    private func takeNext() -> StoredRoom? {
        waiting.isEmpty ? nil : waiting.removeFirst()
    }

    private func start(_ room: StoredRoom) -> Task<Void, Never> {
        let task = Task {
            let result = await reopen(room)
            self.finish(room.id, result)
        }
        running[room.id] = task
        return task
    }

    private func finish(_ id: String, _ result: RoomRestorer.Outcome) {
        running[id] = nil
        log += result.resumed.map { "reopened \($0)" } + result.closed.map { "closed \($0.room)" }
        outcome.resumed += result.resumed
        outcome.closed += result.closed
        outcome.notes += result.notes
    }
}

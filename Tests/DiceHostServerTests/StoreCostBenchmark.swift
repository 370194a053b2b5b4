@testable import DiceHostServer
import Foundation
import NIOPosix
import Testing

/// The store's own CPU per input (bench/store-cost.sh, bench/README.md): rooms hand the
/// group commit what a served input writes (its clock catch-up row, its row with events, the
/// seat's sequence number) and wait for it, as a room does, at a person's pace and flat out.
/// CPU is the process's (getrusage user + sys) over the inputs, less the same run on a store
/// that writes nothing (the harness's own tasks, sleeps and continuations).
///
/// Off unless STORE_COST_BENCH=1 (it takes about a minute and measures, it checks little):
///     STORE_COST_BENCH=1 swift test --filter StoreCostBenchmark
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["STORE_COST_BENCH"] == "1"))
struct StoreCostBenchmark {
    /// Writes nothing, at once.
    struct NothingStore: RoomStore {
        let location = "nothing"
        func commit(_ batch: [[StoreWrite]]) async throws -> [Int: StoreRefusal] { [:] }
        func unfinishedRooms() async throws -> [StoredRoom] { [] }
        func closedReason(room: String) async throws -> String? { nil }
        func close() async {}
    }

    /// The floor under any store that syncs each transaction: one 4 KB write and an fsync per
    /// transaction, on a thread of its own, through the same group commit.
    final class SyncFloorStore: StoreOnItsOwnThread, @unchecked Sendable {
        // @unchecked Sendable: `offset` is used on the pool's one thread only.
        let location = "write+fsync"
        let pool = NIOThreadPool(numberOfThreads: 1)
        let descriptor: Int32
        private var offset: off_t = 0
        private let page = [UInt8](repeating: 7, count: 4096)
        init(path: String) {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            pool.start()
        }
        func submit(_ work: @escaping @Sendable () -> Void) { pool.submit { _ in work() } }
        func commitHere(_ batch: [[StoreWrite]]) throws -> [Int: StoreRefusal] {
            guard page.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, 4096, offset) }) == 4096, fsync(descriptor) == 0 else {
                throw StoreError("write failed")
            }
            offset += 4096
            return [:]
        }
        func commit(_ batch: [[StoreWrite]]) async throws -> [Int: StoreRefusal] { try commitHere(batch) }
        func unfinishedRooms() async throws -> [StoredRoom] { [] }
        func closedReason(room: String) async throws -> String? { nil }
        func close() async {
            Foundation.close(descriptor)
            try? await pool.shutdownGracefully()
        }
    }

    static var cpuSeconds: Double {
        var usage = rusage()
        #if os(Linux)
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        #else
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// About what a Snap card's events weigh as the journal writes them.
    static let events = "[" + (1...4).map { "{\"type\":\"card\",\"seat\":\($0),\"card\":\"7 of hearts\",\"pile\":\(10 + $0),\"led\":[1,0,1,0,1,0]}" }.joined(separator: ",") + "]"

    /// `rooms` rooms, each handing in `inputs` inputs `pause` apart (nil: flat out) and
    /// waiting for each; CPU seconds and inputs.
    static func run(_ store: any RoomStore, rooms: Int, inputs: Int, pause: Duration?) async throws -> (cpu: Double, inputs: Int, transactions: Int) {
        let commits = GroupCommit(store: store)
        // Each room's id and its first input's number, so a store file takes runs one after another.
        let base = Int64(Date().timeIntervalSince1970 * 1000)
        let start = cpuSeconds
        try await withThrowingTaskGroup(of: Void.self) { group in
            for room in 0..<rooms {
                group.addTask {
                    let id = "bench\(room)"
                    if let pause { try await Task.sleep(for: pause * Double(room) / Double(rooms)) }
                    for n in 0..<Int64(inputs) {
                        let tick = StoredInput(n: base + 2 * n, line: "tick 250ms", time: 250 * n, events: "[]")
                        let roll = StoredInput(n: base + 2 * n + 1, line: "as Ann roll", time: 250 * n, events: events)
                        let ticket = commits.enqueue([.input(room: id, tick), .input(room: id, roll), .lastSeq(room: id, seat: 0, seq: n + 1)])
                        try await commits.wait(for: ticket)
                        if let pause { try await Task.sleep(for: pause) }
                    }
                }
            }
            try await group.waitForAll()
        }
        return (cpuSeconds - start, rooms * inputs, commits.transactions)
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    @Test func theStoresOwnCPUPerInputAtAPersonsPaceAndFlatOut() async throws {
        let folder = NSTemporaryDirectory() + "store-cost-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try await SQLiteRoomStore.open(path: folder + "/rooms.sqlite")
        let syncFloor = SyncFloorStore(path: folder + "/floor")
        let environment = ProcessInfo.processInfo.environment
        let runs = Int(environment["STORE_COST_RUNS"] ?? "") ?? 3
        var report: [String] = []
        for (name, pause, inputs) in [("person's pace (an input every 500 ms a room)", Optional(Duration.milliseconds(500)), 10),
                                      ("flat out", nil, 40)] {
            var net: [Double] = [], raw: [Double] = [], perTransaction: [Double] = [], floor: [Double] = []
            for _ in 0..<runs {
                let nothing = try await Self.run(NothingStore(), rooms: 50, inputs: inputs, pause: pause)
                let sqlite = try await Self.run(store, rooms: 50, inputs: inputs, pause: pause)
                let synced = try await Self.run(syncFloor, rooms: 50, inputs: inputs, pause: pause)
                #expect(sqlite.transactions <= sqlite.inputs)
                raw.append(sqlite.cpu / Double(sqlite.inputs) * 1e6)
                net.append((sqlite.cpu - nothing.cpu) / Double(sqlite.inputs) * 1e6)
                floor.append((synced.cpu - nothing.cpu) / Double(synced.inputs) * 1e6)
                perTransaction.append(Double(sqlite.inputs) / Double(sqlite.transactions))
            }
            report.append("store-cost \(name): SQLite \(Int(Self.median(net))) µs of CPU an input beyond the harness (median of \(runs); "
                + "\(Int(Self.median(raw))) µs with it), a 4 KB write + fsync a transaction \(Int(Self.median(floor))) µs, "
                + "\(String(format: "%.1f", Self.median(perTransaction))) inputs a transaction")
        }
        await store.close()
        await syncFloor.close()
        print(report.joined(separator: "\n"))
    }
}

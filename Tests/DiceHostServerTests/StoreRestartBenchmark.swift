@testable import DiceHostServer
import Foundation
import Testing

/// A restart's time against the rooms' history (bench/store-cost/run.sh, bench/README.md):
/// 100 rooms of Race to Space that played for H seconds (one clock catch-up a second, as a
/// room with players writes about), the time until the server listens and until every room
/// is reopened. Off unless STORE_RESTART_BENCH=1.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["STORE_RESTART_BENCH"] == "1"))
struct StoreRestartBenchmark {
    @Test func aRestartListensInATimeThatDoesNotGrowWithTheRoomsHistory() async throws {
        let race = try String(contentsOfFile: TestServer.repositoryRules + "/race.lua", encoding: .utf8)
        let rooms = Int(ProcessInfo.processInfo.environment["STORE_RESTART_ROOMS"] ?? "") ?? 100
        var report: [String] = []
        for ticks in [60, 600, 3600] {
            try await withRulesFolder(["race.lua": race]) { folder in
                let path = (folder as NSString).appendingPathComponent("rooms.sqlite")
                try await StartupRestoreTests.writeStore(path, rules: (folder as NSString).appendingPathComponent("race.lua"), rooms: rooms, ticks: ticks)
                let clock = ContinuousClock()
                let start = clock.now
                let (server, _, task) = try await StartupRestoreTests.start(rules: folder, store: path)
                let listening = clock.now - start
                let startup = try #require(await server.lobby.startup)
                await startup.finished()
                let reopened = clock.now - start
                task.cancel()
                _ = try? await task.value
                #expect(await server.lobby.allRooms.count == rooms)
                report.append("store-restart \(rooms) rooms x \(ticks) stored inputs: listening after \(listening), all reopened after \(reopened)")
            }
        }
        print(report.joined(separator: "\n"))
    }
}

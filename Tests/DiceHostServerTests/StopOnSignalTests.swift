@testable import DiceHostServer
import Foundation
import Testing

/// A real `dicehost serve` with a store, stopped with SIGTERM while clients are connected,
/// some of which never answer a close: it exits (status 0) instead of waiting for them,
/// tells each client 1001 "server restarting", and a new process on the same store opens
/// it and has every input the first one acknowledged.
@Suite(.serialized)
struct StopOnSignalTests {
    @Test func sigtermWithClientsThatNeverCloseExitsAndKeepsEveryAcknowledgedInput() async throws {
        let binary = KillNineTests.packageRoot.appendingPathComponent(".build/debug/dicehost").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            Issue.record("build dicehost first (swift build): this test runs the binary")
            return
        }
        let race = try String(contentsOfFile: TestServer.repositoryRules + "/race.lua", encoding: .utf8)
        try await withRulesFolder(["race.lua": race]) { rules in
            let store = (rules as NSString).appendingPathComponent("rooms.sqlite")
            let (first, port) = try KillNineTests().serve([rules, "--store", store])
            defer { if first.isRunning { kill(first.processIdentifier, SIGKILL); first.waitUntilExit() } }

            // Two rooms whose players roll as fast as the acks come, and two connections
            // that said hello and then neither read nor answer anything, a close included.
            let rooms = try await KillNineTests.rooms(2, port: port)
            var silent: [RawSocket] = []
            for _ in 0..<2 {
                let socket = try RawSocket(port: port)
                #expect(await socket.upgrade(port: port).hasPrefix("HTTP/1.1 101"))
                socket.sendText(#"{"type":"hello","version":1}"#)
                silent.append(socket)
            }
            let acks = AckCounter()
            let players = KillNineTests.rollAsFastAsAcksCome(rooms, counting: acks)
            while acks.count < 30 { try await Task.sleep(for: .milliseconds(5)) }
            kill(first.processIdentifier, SIGTERM)
            // Not a measure of speed: only that it ends at all (before, it waited for the
            // silent clients for ever).
            let deadline = ContinuousClock.now + .seconds(20)
            while first.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(!first.isRunning, "dicehost serve still runs 20 s after SIGTERM")
            guard !first.isRunning else { return }
            #expect(first.terminationReason == .exit && first.terminationStatus == 0,
                    "serve ended with \(first.terminationReason == .exit ? "status" : "signal") \(first.terminationStatus)")
            var acked: [[Int]] = []
            for player in players { acked.append(await player.value) }
            #expect(acked.allSatisfy { $0[0] > 0 })

            // The silent clients were sent the close, and then their sockets were closed.
            for socket in silent {
                let (bytes, closed) = await socket.readUntilClosed(timeout: .seconds(5))
                #expect(closed, "the server closed the socket of a client that never answered")
                // (upgrade() read the HTTP head: these are frames only.)
                #expect(RawSocket.closeCode(in: bytes) == 1001)
                let close = RawSocket.frames(in: bytes).first { $0.opcode == 8 }
                #expect(close.map { String(decoding: $0.payload.dropFirst(2), as: UTF8.self) } == "server restarting")
            }

            // The store's lock was let go: a new process opens it, with every acknowledged input.
            let (second, port2) = try KillNineTests().serve([rules, "--store", store])
            defer { kill(second.processIdentifier, SIGKILL); second.waitUntilExit() }
            for (index, room) in rooms.enumerated() {
                for seat in 0..<2 {
                    let client = try await KillNineTests.comeBack(room, seat: seat, port: port2, acked: acked[index][seat])
                    client.close()
                }
            }
        }
    }

}

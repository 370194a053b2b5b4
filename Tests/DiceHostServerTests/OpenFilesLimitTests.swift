@testable import DiceHostServer
import Foundation
import Testing

/// A real `dicehost serve` started with a low open-files limit (RLIMIT_NOFILE set for the
/// child by the shell): it takes only the connections that limit holds after its reserve,
/// refuses the rest with 503, and never runs out of descriptors (which would crash it in
/// libdispatch, see `OpenFileLimit`).
@Suite(.serialized)
struct OpenFilesLimitTests {
    static let binary = KillNineTests.packageRoot.appendingPathComponent(".build/debug/dicehost").path

    @Test func pastWhatALowOpenFilesLimitHoldsConnectionsAreRefusedWith503AndTheServerPlaysOn() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            Issue.record("build dicehost first (swift build): this test runs the binary")
            return
        }
        let processors = ProcessInfo.processInfo.activeProcessorCount
        // 120 files for clients past the reserve: a third for room logs, 80 connections.
        let files = OpenFileLimit.reserve(processors: processors) + 120
        let cap = OpenFileLimit(before: files, now: files, hard: files, needed: 0)
            .fitting(ServerLimits(), logs: true, processors: processors).connections
        #expect(cap == 80)
        let race = try String(contentsOfFile: TestServer.repositoryRules + "/race.lua", encoding: .utf8)
        try await withRulesFolder(["race.lua": race]) { rules in
            let logs = (rules as NSString).appendingPathComponent("logs")
            try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: false)
            let errors = (rules as NSString).appendingPathComponent("serve.err")
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(files) && exec \"$0\" serve \"$1\" --store \"$1/rooms.sqlite\" --logs \"$2\" --port 0",
                                 Self.binary, rules, logs]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) }; process.waitUntilExit() }
            var text = ""
            while !text.contains("\n") {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            let port = try #require(text.split(separator: ":").dropFirst(3).first.flatMap { Int($0.prefix { $0.isNumber }) }, "serve printed no port: \(text)")
            // The start says what it takes, below the configured 10,000.
            let said = try String(contentsOfFile: errors, encoding: .utf8)
            #expect(said.contains("at most \(cap) connections (not 10000)"), "serve said: \(said)")

            let server = TestServer(port: port, task: Task {})
            let rooms = [try await server.twoPlayerRoom("race.lua"), try await server.twoPlayerRoom("race.lua")]
            // The rest of the cap in bare upgraded WebSockets, then more: those are refused.
            var held: [RawSocket] = []
            var refusals: [String] = []
            for _ in 0..<(cap - 4 + 20) {
                let socket = try RawSocket(port: port)
                let head = await socket.upgrade(port: port)
                if head.hasPrefix("HTTP/1.1 101") { held.append(socket) } else { refusals.append(head) }
            }
            #expect(held.count + 4 == cap, "\(held.count) bare WebSockets taken besides the 4 players, the cap is \(cap)")
            #expect(refusals.count == 20 && refusals.allSatisfy { $0.hasPrefix("HTTP/1.1 503") && $0.contains("holds \(cap) connections") }, "refusals: \(refusals.prefix(2))")

            // Still up, and the rooms it took play on.
            #expect(process.isRunning)
            for room in rooms {
                for (seq, client) in [(1, room.ann), (1, room.bob), (2, room.ann)] {
                    client.send(["type": "roll", "seq": seq])
                    let ack = await client.next("ack")
                    #expect(ack?["seq"] as? Int == seq, "room \(room.room): roll \(seq) acknowledged")
                }
            }
            // Some leave: a new player gets in.
            held.removeFirst(5)
            let late = try await TestClient.connect(port: port)
            let welcome = try await late.hello()
            #expect(welcome["type"] as? String == "hello", "the late player is greeted: \(welcome)")
            #expect(process.isRunning)
            late.close()
        }
    }
}

import Foundation
import Testing

/// A `dicehost play` process that stays open: lines go in while the test watches the output.
final class LiveProcess {
    let process = Process()
    let input = Pipe(), output = Pipe()
    private let lock = NSLock()
    private var text = ""

    init(_ arguments: [String]) throws {
        process.executableURL = packageRoot.appendingPathComponent(".build/debug/dicehost")
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock(); self.text += String(decoding: data, as: UTF8.self); self.lock.unlock()
        }
        try process.run()
    }

    var printed: String { lock.lock(); defer { lock.unlock() }; return text }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    /// Waits until the output contains `expected`; returns the seconds it took, or nil after 10 s.
    @discardableResult
    func waitFor(_ expected: String, after start: Date = Date()) -> Double? {
        while Date().timeIntervalSince(start) < 10 {
            if printed.contains(expected) { return Date().timeIntervalSince(start) }
            usleep(5_000)
        }
        return nil
    }

    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        let start = Date()
        while process.isRunning && Date().timeIntervalSince(start) < 10 { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite struct HotReloadTests {
    func counter(_ name: String, adds: Int, extra: String = "") -> String {
        """
        local r = rules { name = "\(name)", players = 1, dice = "1d6" }
        function r.setup(g) g.state.count = 0 end
        function r.roll(g, p, roll)
          g.state.count = g.state.count + \(adds)
          g:say("count %d", g.state.count)
        end
        \(extra)
        return r
        """
    }

    @Test func aSavedFileReloadsKeepingTheGameAndABrokenOneKeepsTheOldRules() throws {
        let path = try writeTemporary(counter("Counter", adds: 1), name: "counter.lua")
        let play = try LiveProcess(["play", path, "--watch", "--seed", "1", "--players", "Ann"])
        defer { if play.process.isRunning { play.process.terminate() } }
        #expect(play.waitFor("watching \(path)") != nil, "\(play.printed)")
        play.send("roll 1")
        #expect(play.waitFor("say count 1") != nil)

        let saved = Date()
        try counter("Counter v2", adds: 10, extra: "function r.migrate(g) g:say(\"migrated at %d\", g.state.count) end")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let latency = play.waitFor("reload Counter v2", after: saved)
        #expect(latency != nil && latency! < 2, "reload seen after \(latency ?? -1) s")
        #expect(play.waitFor("say migrated at 1") != nil)  // the state was kept
        play.send("roll 2")
        #expect(play.waitFor("say count 11") != nil, "\(play.printed)")

        try "local r = rules { name = 'Broken', players = 1 }\nfunction r.roll(g, p, roll)\n  g.state.count =\nend\nreturn r\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(play.waitFor("reload failed, the old rules still run: \(path):4:") != nil, "\(play.printed)")
        play.send("roll 3")
        #expect(play.waitFor("say count 21") != nil, "\(play.printed)")

        try counter("Counter v3", adds: 100).write(toFile: path, atomically: true, encoding: .utf8)
        #expect(play.waitFor("reload Counter v3") != nil)
        play.send("roll 4")
        #expect(play.waitFor("say count 121") != nil, "\(play.printed)")
        play.send("state")
        #expect(play.waitFor("state: {count=121}") != nil)
        #expect(play.finish() == 1)  // the broken save was a rule error
    }

    @Test func aRequiredModuleIsWatchedToo() throws {
        let path = try writeTemporary("""
            local scoring = require("scoring")
            local r = rules { name = "Modular", players = 1, dice = "1d6" }
            function r.setup(g) g.state.count = 0 end
            function r.roll(g, p, roll) g.state.count = scoring.add(g.state.count); g:say("count %d", g.state.count) end
            return r
            """, name: "modular.lua")
        let module = (path as NSString).deletingLastPathComponent + "/scoring.lua"
        try "return { add = function(n) return n + 1 end }\n".write(toFile: module, atomically: true, encoding: .utf8)
        let play = try LiveProcess(["play", path, "--watch", "--seed", "1", "--players", "Ann"])
        defer { if play.process.isRunning { play.process.terminate() } }
        #expect(play.waitFor("scoring.lua") != nil, "\(play.printed)")
        play.send("roll 1")
        #expect(play.waitFor("say count 1") != nil)
        try "return { add = function(n) return n + 5 end }\n".write(toFile: module, atomically: true, encoding: .utf8)
        #expect(play.waitFor("reload Modular") != nil, "\(play.printed)")
        play.send("roll 1")
        #expect(play.waitFor("say count 6") != nil, "\(play.printed)")
        #expect(play.finish() == 0)
    }

    @Test func ctrlCStopsARunawayHookAndThePlayGoesOn() throws {
        let path = try writeTemporary(counter("Loop", adds: 1, extra: "r.actions = { spin = function(g, p) while true do local d = dice.distribution('40d100') end end }"),
                                      name: "loop.lua")
        let play = try LiveProcess(["play", path, "--seed", "1", "--players", "Ann"])
        defer { if play.process.isRunning { play.process.terminate() } }
        #expect(play.waitFor("Loop: Ann") != nil)
        // Exact big-number work is slow per unit of budget, and far slower in the debug build
        // the tests run: the budget takes tens of seconds, so Ctrl-C comes first (a loop of
        // plain instructions or string work spends the budget in a tenth of a second).
        play.send("spin")
        usleep(200_000)
        play.process.interrupt()
        #expect(play.waitFor("interrupted") != nil, "\(play.printed)")
        #expect(!play.printed.contains("budget"))
        play.send("roll 2")
        #expect(play.waitFor("say count 1") != nil, "\(play.printed)")
        #expect(play.finish() == 1)
    }
}

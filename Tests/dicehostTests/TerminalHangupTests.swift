import Foundation
import Testing

/// `dicehost play` at a terminal that goes away (a window closed, an ssh connection
/// dropped): it ends, as at Ctrl-D, rather than polling a dead terminal for ever.
@Suite struct TerminalHangupTests {
    /// A pseudo-terminal: the REPL gets its slave side as standard input and output (so
    /// it runs libedit's line editor), the test holds the master side and closes it.
    struct PseudoTerminal {
        let master: Int32
        let slave: Int32

        init() throws {
            // Glibc's Swift module leaves out the pty functions (they need _XOPEN_SOURCE):
            // look them up in libc itself.
            typealias OpenPT = @convention(c) (Int32) -> Int32
            typealias OnMaster = @convention(c) (Int32) -> Int32
            typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
            let libc = dlopen(nil, RTLD_NOW)
            func function<T>(_ name: String, _: T.Type) throws -> T {
                guard let symbol = dlsym(libc, name) else { throw POSIXError(.ENOSYS) }
                return unsafeBitCast(symbol, to: T.self)
            }
            let openpt = try function("posix_openpt", OpenPT.self), grant = try function("grantpt", OnMaster.self)
            let unlock = try function("unlockpt", OnMaster.self), ptsname = try function("ptsname", Name.self)
            master = openpt(O_RDWR | O_NOCTTY)
            guard master >= 0, grant(master) == 0, unlock(master) == 0, let name = ptsname(master) else {
                throw POSIXError(.ENODEV)
            }
            slave = open(name, O_RDWR | O_NOCTTY)
            guard slave >= 0 else { throw POSIXError(.ENODEV) }
        }

        /// What the REPL wrote, until `marker` appears or `seconds` pass.
        func read(until marker: String, seconds: Double) -> String {
            var text = ""
            let deadline = Date().addingTimeInterval(seconds)
            while !text.contains(marker) && Date() < deadline {
                var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = Glibc.read(master, &chunk, chunk.count)
                if count <= 0 { break }
                text += String(decoding: chunk[..<count], as: UTF8.self)
            }
            return text
        }
    }

    @Test func playEndsWhenItsTerminalGoesAway() throws {
        let terminal = try PseudoTerminal()
        let home = NSTemporaryDirectory() + "dicehost-hangup-\(UUID().uuidString)"  // the history file goes here
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent(".build/debug/dicehost")
        process.arguments = ["play", "examples/rules/pig.lua", "--seed", "3"]
        process.currentDirectoryURL = packageRoot
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        environment["TERM"] = "xterm"
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let handle = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        close(terminal.slave)
        let shown = terminal.read(until: "Ann>", seconds: 30)
        #expect(shown.contains("Ann>"), "no prompt: \(shown)")
        close(terminal.master)  // the terminal goes away
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        let ended = !process.isRunning
        if !ended { process.terminate() }
        process.waitUntilExit()
        #expect(ended, "dicehost play kept running for 10 s after its terminal went away")
        // Nothing saved unasked: not even a history line, since none was typed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: home).isEmpty)
    }
}

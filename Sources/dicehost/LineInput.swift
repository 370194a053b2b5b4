import Foundation
import DiceHost
import Lua

/// Standard input read line by line without blocking the session: between lines it
/// wakes every `tick` to let the caller watch files, and Ctrl-C at the prompt drops
/// the line being typed instead of ending the program.
final class LineInput {
    private var buffer: [UInt8] = []
    private var atEnd = false
    /// Skipping the rest of a line too long to keep (its first bytes were returned).
    private var skippingToNewline = false
    let tick: Int32 = 100 // ms

    enum Event {
        case line(String)
        case interrupted
        case end
        /// `idle` asked to stop waiting (see `next(until:)`).
        case woken
    }

    /// The next line, calling `idle` about every 100 ms while none is ready.
    func next(idle: () -> Void) -> Event {
        next(until: { idle(); return false })
    }

    /// The next line, or `.woken` as soon as `wake` (called about every 100 ms while no
    /// line is ready) returns true.
    func next(until wake: () -> Bool) -> Event {
        while true {
            if skippingToNewline {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    buffer.removeSubrange(...newline)
                    skippingToNewline = false
                } else {
                    buffer.removeAll()
                }
            }
            if !skippingToNewline, buffer.count > GameSession.maxLineBytes, !buffer.contains(UInt8(ascii: "\n")) {
                // Memory stays bounded: the line's start is enough for the session to refuse it.
                let start = String(decoding: buffer.prefix(GameSession.maxLineBytes + 1), as: UTF8.self)
                buffer.removeAll()
                skippingToNewline = true
                return .line(start)
            }
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return .line(line.hasSuffix("\r") ? String(line.dropLast()) : line)
            }
            if atEnd {
                guard !buffer.isEmpty else { return .end }
                defer { buffer.removeAll() }
                return .line(String(decoding: buffer, as: UTF8.self))
            }
            if Interrupts.takePending() { return .interrupted }
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, tick)
            if ready < 0 {
                if errno == EINTR { continue }
                atEnd = true
                continue
            }
            if ready == 0 {
                if wake() { return .woken }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(STDIN_FILENO, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { atEnd = true; continue }
            buffer += chunk[..<count]
        }
    }
}

/// Ctrl-C: while a command runs, it asks the running script to stop (the game rolls
/// back, as after any rule error); at the prompt, it abandons the line typed so far.
enum Interrupts {
    /// Read by the signal handler: plain memory, set up before the handler is installed.
    private static let slot: UnsafeMutablePointer<LuaInterruptHandle?> = {
        let p = UnsafeMutablePointer<LuaInterruptHandle?>.allocate(capacity: 1)
        p.initialize(to: nil)
        return p
    }()
    private static let pending: UnsafeMutablePointer<sig_atomic_t> = {
        let p = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()

    static func install() {
        _ = slot; _ = pending
        // A parent (a test runner, a job control shell) may hand down SIGINT blocked.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        signal(SIGINT) { _ in
            if let handle = Interrupts.slot.pointee { handle.request() } else { Interrupts.pending.pointee = 1 }
        }
    }

    /// Runs `body` with Ctrl-C aimed at the script it runs.
    static func whileRunning<T>(_ lua: LuaState, _ body: () throws -> T) rethrows -> T {
        let handle = lua.interruptHandle
        handle.clear()
        slot.pointee = handle
        defer { slot.pointee = nil; handle.clear() }
        return try body()
    }

    static func takePending() -> Bool {
        defer { pending.pointee = 0 }
        return pending.pointee != 0
    }
}

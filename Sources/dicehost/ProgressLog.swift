import DiceHost
import Foundation

/// Progress of a long analysis where standard error is not a terminal (a script, CI, an
/// editor's task runner): a line every `interval` seconds, each on its own line, with the
/// time so far, the latest figures the analysis gave (its phase, positions, rate) and the
/// process's memory. A terminal gets the redrawn progress line instead.
final class ProgressLog: @unchecked Sendable {
    /// Seconds between lines: 10, or DICEHOST_PROGRESS_SECONDS (tests set it low).
    static let defaultInterval = 10.0
    static let intervalVariable = "DICEHOST_PROGRESS_SECONDS"

    struct IntervalError: Error, CustomStringConvertible {
        let text: String
        var description: String { "\(ProgressLog.intervalVariable) must be a number of seconds from 0.05 to 86400, got '\(text)'" }
    }

    /// The interval from the environment: the default when unset, an error when not a
    /// number of seconds in range.
    static func interval(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Double {
        guard let text = environment[intervalVariable] else { return defaultInterval }
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0.05, seconds <= 86_400 else {
            throw IntervalError(text: text)
        }
        return seconds
    }

    private let file: String
    private let interval: Double
    private let write: (String) -> Void
    private let lock = NSLock()
    private var latest = "starting"
    private var latestAt = DispatchTime.now().uptimeNanoseconds
    private let began = DispatchTime.now().uptimeNanoseconds
    private var timer: DispatchSourceTimer?

    init(file: String, interval: Double, write: @escaping (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) {
        self.file = file
        self.interval = interval
        self.write = write
    }

    /// The analysis's latest figures ("exploring: 12034 positions found, …").
    func note(_ line: String) {
        lock.lock()
        latest = line
        latestAt = DispatchTime.now().uptimeNanoseconds
        lock.unlock()
    }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        let nanoseconds = Int(interval * 1e9)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { [weak self] in self?.tick() }
        lock.lock()
        self.timer = timer
        lock.unlock()
        timer.resume()
    }

    /// Stops the lines (before a result or an error is printed); harmless twice.
    func stop() {
        lock.lock()
        let timer = self.timer
        self.timer = nil
        lock.unlock()
        timer?.cancel()
    }

    /// One line: "rules/pig.lua: 20 s, exploring: 120000 positions found, …, 210 MiB".
    func line(now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> String {
        lock.lock()
        defer { lock.unlock() }
        return lineLocked(now: now)
    }

    private func lineLocked(now: UInt64) -> String {
        var text = String(format: "%@: %.0f s, %@", file, Double(now - began) / 1e9, latest)
        // A phase that gives no figures for a while (one large system being solved) still
        // shows the memory it holds, and how old the figures are.
        if !latest.contains("MiB") { text += String(format: ", %.0f MiB", Double(ProcessMemory.resident()) / 1048576) }
        let age = Double(now - latestAt) / 1e9
        if age >= 2 * interval { text += String(format: " (figures from %.0f s ago)", age) }
        return text
    }

    /// Written under the lock, so no line follows `stop`.
    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        guard timer != nil else { return }
        write(lineLocked(now: DispatchTime.now().uptimeNanoseconds))
    }
}

import DiceHost
import Foundation

/// Runs one exact analysis (`odds`, `solve`, `odds --vs`) with its progress on standard
/// error - a redrawn line on a terminal, else a line every 10 s (`ProgressLog`) - and
/// turns its errors into the command line's exit statuses: an analysis that cannot be
/// done is a failure (1), a script that does not load is 3, a bad `--set` is bad usage (2).
enum AnalysisProgress {
    /// `suggestsSim`: a game `odds` cannot analyse is pointed to `dicehost sim`, which
    /// estimates what odds would compute.
    static func run<T>(_ file: String, quiet: Bool, suggestsSim: Bool = false, _ body: (_ progress: @escaping (String) -> Void) throws -> T) throws -> T {
        let onTerminal = isatty(STDERR_FILENO) != 0
        let showsProgress = !quiet && onTerminal
        let log: ProgressLog?
        if !quiet && !onTerminal {
            do { log = ProgressLog(file: file, interval: try ProgressLog.interval()) } catch {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
        } else {
            log = nil
        }
        log?.start()
        defer {
            log?.stop()
            if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        }
        do {
            // The lines stop before any message below is printed.
            do {
                return try body { line in
                    if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K\(file): \(line)".utf8)) }
                    log?.note(line)
                }
            } catch {
                log?.stop()
                throw error
            }
        } catch let error as PolicyError {
            printError("dicehost: --vs: \(error)")
            throw ExitStatus.failure
        } catch let error as OddsError {
            if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            printError("\(file): \(error)")
            if suggestsSim, case .notAnalysable = error {
                printError("\(file): estimate the odds by simulation instead: dicehost sim \(file) --games 100000")
            }
            throw ExitStatus.failure
        } catch let error as GameError {
            printError("\(error)")
            throw ExitStatus.scriptDoesNotLoad
        } catch let error as RuleSet.OverrideError {
            throw ExitStatus.loadFailure(error)
        }
    }
}

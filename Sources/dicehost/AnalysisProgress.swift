import DiceHost
import Foundation

/// Runs one exact analysis (`odds`, `solve`, `odds --vs`) with its progress line on a
/// terminal's standard error, and turns its errors into the command line's exit statuses:
/// an analysis that cannot be done is a failure (1), a script that does not load is 3,
/// a bad `--set` is bad usage (2).
enum AnalysisProgress {
    /// `suggestsSim`: a game `odds` cannot analyse is pointed to `dicehost sim`, which
    /// estimates what odds would compute.
    static func run<T>(_ file: String, quiet: Bool, suggestsSim: Bool = false, _ body: (_ progress: @escaping (String) -> Void) throws -> T) throws -> T {
        let showsProgress = !quiet && isatty(STDERR_FILENO) != 0
        defer { if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) } }
        do {
            return try body { line in
                if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K\(file): \(line)".utf8)) }
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

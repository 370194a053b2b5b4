import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a JSON Lines game log (play --log) and check every event.",
            discussion: """
                Plays each game of the log again from its seed and inputs and compares every
                event. With --rules, replays the same inputs under other rules and shows the first
                input whose events differ, both sides. A log is never trusted: replay writes no
                file (a logged 'save' is refused) and reads recordings only from the log's own
                folder. Exits 0 when every event matches, 1 at a difference or when replay stops
                at a logged 'load' (the rest is not checked), 2 for a log that cannot be read, 3 if
                the rules do not load.
                """
        )

        @Argument(help: "The log file written by 'dicehost play --log FILE'.")
        var log: String

        @Option(help: "Replay the inputs under these rules instead of the logged ones.")
        var rules: String?

        @Flag(help: "Only print the logged events with their game time (the text view of the log).")
        var text = false

        @Flag(help: "Rewrite a log of format 1 (inputs as command lines) in format 2 (inputs typed) after replaying it; a log that does not replay as logged is left as it was.")
        var convert = false

        func run() throws {
            if convert {
                do {
                    let converted = try GameLogConversion.convert(log)
                    print(converted == 0 ? "\(log): already in format \(GameLog.version), left as it was"
                                         : "\(log): \(converted) game\(converted == 1 ? "" : "s") converted to format \(GameLog.version)")
                } catch {
                    printError("dicehost: \(error)")
                    throw ExitStatus.failure
                }
                return
            }
            // The log is read line by line and each input replayed as it is read: memory
            // stays the same however long the log. A malformed line ends the replay there.
            if text {
                do {
                    try GameLog.stream(log) { item in
                        let events: [JSONValue]
                        switch item {
                        case .header(let header, _): events = header.events
                        case .entry(let entry, _): events = entry.events
                        }
                        GameLog.textLines(of: events).forEach { print($0) }
                    }
                } catch {
                    printError("dicehost: \(error)")
                    throw ExitStatus.usage
                }
                return
            }
            let report = GameReplay.run(logFile: log, rules: rules)
            report.lines.forEach { print($0) }
            if let error = report.logError {
                printError("dicehost: \(error)")
                throw ExitStatus.usage
            }
            if report.games.contains(where: { $0.failure != nil }) { throw ExitStatus.scriptDoesNotLoad }
            if !report.matched { throw ExitStatus.failure }
        }
    }
}

import Foundation

/// Replays one game of a log input by input, as its lines are read, and keeps only the
/// report: no input once checked is held. After a difference, a failure or a logged
/// `load`, later inputs are only counted.
struct GameReplayer {
    private(set) var report: GameReplay.GameReport
    private let session: GameSession?
    /// The game as replayed so far (nil when it could not start).
    var game: Game? { session?.game }

    init(header: GameLog.Header, line headerLine: Int, folder: String?, rules override: String?,
         makeGame: (GameLog.Header, String) throws -> Game) {
        let rules = override ?? header.rules
        var report = GameReplay.GameReport(rules: rules, inputCount: 0)
        if override != nil, override != header.rules {
            report.notes.append("replaying under \(rules), not the logged \(header.rules)")
        } else {
            let now = GameLog.sha256(ofFile: rules, limit: Int.max)
            if now != header.rules_sha256 {
                report.notes.append("the rules file has changed since the log was written (sha256 \(header.rules_sha256.prefix(12))… in the log, \(now.prefix(12))… now)")
            }
            for file in header.requires {
                let now = GameLog.sha256(ofFile: file.path, limit: Int.max)
                if now != file.sha256 { report.notes.append("\(file.path), which the rules require, has changed since the log was written") }
            }
        }
        let game: Game
        do { game = try makeGame(header, rules) } catch {
            report.failure = "cannot start the game: \(error)"
            self.report = report
            session = nil
            return
        }
        // A log is data from someone else: its inputs write nothing and read only beside it.
        let session = GameSession(game: game, files: .replay(logFolder: folder))
        let start = GameLog.startEvents(of: game).map(GameLog.json)
        if start == header.events {
            report.checkedEvents = start.count
        } else {
            report.divergence = GameReplay.Divergence(input: 0, line: headerLine, command: "(start)", logged: header.events, replayed: start)
        }
        self.report = report
        self.session = session
    }

    /// Plays the next logged input and checks its events and error. Returns the entry
    /// with its input typed when it was a command line that is one (how a format 1 log is
    /// converted), nil when it was not played (after a difference, a failure or a load).
    @discardableResult
    mutating func replay(_ entry: GameLog.Entry, line: Int) -> GameLog.Entry? {
        report.inputCount += 1
        guard let session, report.divergence == nil, report.stopped == nil else { return nil }
        if let command = entry.command, command.split(whereSeparator: \.isWhitespace).first == "load" {
            report.stopped = "stopped at input \(entry.n) (log line \(line)): '\(command)' replaced the game with a saved one; replay cannot follow it"
            return nil
        }
        let events: [JSONValue], error: String?
        var typed = entry
        if let input = entry.input, input.kind == .bot, input.seat == nil {
            // A bot move is the game's, not a session command: it takes no step of the
            // session's history, however long the log.
            let outcome = session.game.apply(input)
            events = outcome.events.map(GameLog.json)
            error = outcome.errorMessage
        } else {
            let outcome = entry.input.map { GameLog.perform($0, in: session) } ?? GameLog.perform(entry.command ?? "", in: session, quotes: !entry.commandBeforeQuotes)
            events = outcome.events.map(GameLog.json)
            error = outcome.error
            if entry.input == nil, let input = outcome.typedInput { (typed.input, typed.command) = (input, nil) }
        }
        guard events == entry.events, error == entry.error else {
            report.divergence = GameReplay.Divergence(input: entry.n, line: line, command: entry.inputText, logged: entry.events,
                                                      replayed: events, loggedError: entry.error, replayedError: error)
            return nil
        }
        report.matchedInputs += 1
        report.checkedEvents += events.count
        return typed
    }
}

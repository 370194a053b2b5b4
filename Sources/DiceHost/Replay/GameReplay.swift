import Foundation

/// Plays a `GameLog` again and checks every event: under the logged rules a game must
/// reproduce exactly (a seed and its inputs decide everything); under other rules
/// (`rules:`) the first input whose events differ shows what the edit changed.
///
///     let report = try GameReplay.run(GameLog.read("game.jsonl"))
///     if let divergence = report.games[0].divergence { print(divergence.lines.joined(separator: "\n")) }
public enum GameReplay {
    /// What replaying one game of a log found.
    public struct GameReport: Sendable {
        /// The rules it was replayed under.
        public var rules: String
        /// Notes on the rules: a hash that no longer matches, other rules given.
        public var notes: [String] = []
        /// Inputs replayed with the same events and errors as logged.
        public var matchedInputs = 0
        public var checkedEvents = 0
        /// The first input whose events differ (nil: every event matched).
        public var divergence: Divergence?
        /// Why replay stopped early without a difference (a `load`).
        public var stopped: String?
        /// The rules did not load, or the game could not start.
        public var failure: String?
        public var inputCount = 0

        /// Every input checked and matched: a replay stopped at a `load` checked only part.
        public var matched: Bool { divergence == nil && failure == nil && stopped == nil }
    }

    /// Where the replayed game first differs from the log.
    public struct Divergence: Sendable {
        /// The input's number (0: the start of the game, before any input).
        public var input: Int
        /// The log line it came from.
        public var line: Int
        public var command: String
        public var logged: [JSONValue]
        public var replayed: [JSONValue]
        public var loggedError: String?
        public var replayedError: String?

        /// Both sides, event by event, with the first differing event marked.
        public var lines: [String] {
            var out = [input == 0 ? "first difference at the start of the game (log line \(line))"
                                  : "first difference at input \(input) (log line \(line)): \(command)"]
            let firstDifferent = Array(zip(logged, replayed)).firstIndex(where: { $0.0 != $0.1 }) ?? min(logged.count, replayed.count)
            func side(_ title: String, _ events: [JSONValue], _ error: String?) {
                out.append("  \(title):")
                for (index, event) in events.enumerated() {
                    let marker = index == firstDifferent ? "> " : "  "
                    out.append("  \(marker)[\(event["t"]?.intValue ?? 0)ms] \(Self.shortened(event["text"]?.stringValue ?? event.description))")
                }
                if events.isEmpty { out.append("    (no events)") }
                if let error { out.append("    error: \(Self.shortened(error))") }
            }
            side("logged", logged, loggedError)
            side("replayed", replayed, replayedError)
            if firstDifferent < min(logged.count, replayed.count) {
                out += Self.fieldDifferences(logged[firstDifferent], replayed[firstDifferent]).map { "  " + $0 }
            }
            return out
        }

        /// The longest event text or value a report shows (a log line may hold 256 MiB).
        static let maxShownCharacters = 500

        static func shortened(_ text: String) -> String {
            let line = GameEvent.oneLine(text)
            guard line.count > maxShownCharacters else { return line }
            return line.prefix(maxShownCharacters) + "… (\(line.utf8.count) bytes)"
        }

        /// The fields in which two events differ, each with both values: events whose
        /// texts are the same may still differ in their JSON fields.
        static func fieldDifferences(_ logged: JSONValue, _ replayed: JSONValue) -> [String] {
            guard case .object(let a) = logged, case .object(let b) = replayed else {
                return ["the marked event differs: logged \(shortened(logged.description)), replayed \(shortened(replayed.description))"]
            }
            let names = Set(a.keys).union(b.keys).sorted().filter { a[$0] != b[$0] }
            let shown = names.prefix(5).map { name in
                "field \"\(shortened(name))\" differs: logged \(shortened(a[name]?.description ?? "(absent)")), replayed \(shortened(b[name]?.description ?? "(absent)"))"
            }
            return shown + (names.count > 5 ? ["and \(names.count - 5) more fields"] : [])
        }
    }

    /// What replaying a whole log found, game by game.
    public struct Report: Sendable {
        public var games: [GameReport]
        /// The line that ended a streamed replay (`run(logFile:)`): the log could not be
        /// read, or a line is malformed. `games` holds what was replayed before it.
        public var logError: GameLog.FormatError?
        public var matched: Bool { logError == nil && games.allSatisfy(\.matched) }

        public init(games: [GameReport], logError: GameLog.FormatError? = nil) {
            self.games = games
            self.logError = logError
        }

        /// A summary per game, and the divergence in full.
        public var lines: [String] {
            var out: [String] = []
            for (index, game) in games.enumerated() {
                let title = games.count > 1 ? "game \(index + 1) (\(game.rules))" : game.rules
                out += game.notes.map { "\(title): \($0)" }
                if let failure = game.failure { out.append("\(title): \(failure)"); continue }
                if let divergence = game.divergence {
                    out += divergence.lines
                    out.append("\(title): \(game.matchedInputs) of \(game.inputCount) inputs matched before the difference")
                    continue
                }
                if let stopped = game.stopped {
                    out.append("\(title): \(stopped)")
                    let unchecked = game.inputCount - game.matchedInputs
                    out.append("\(title): \(game.matchedInputs) of \(game.inputCount) inputs replayed and their \(game.checkedEvents) events match; "
                               + "the \(unchecked) from the load on were not checked")
                    continue
                }
                out.append("\(title): \(game.matchedInputs) input\(game.matchedInputs == 1 ? "" : "s") replayed, all \(game.checkedEvents) events match")
            }
            return out
        }
    }

    /// Replays every game of a log, under `rules` if given (else each game's own rules
    /// file). `makeGame` lets an embedder start the game its own way (its limits, its die).
    public static func run(_ games: [GameLog.LoggedGame], rules override: String? = nil,
                           makeGame: (GameLog.Header, String) throws -> Game = defaultGame) -> Report {
        Report(games: games.map { logged in
            var replayer = GameReplayer(header: logged.header, line: logged.headerLine, folder: logged.folder, rules: override, makeGame: makeGame)
            for (line, entry) in logged.entries { replayer.replay(entry, line: line) }
            return replayer.report
        })
    }

    /// Replays a log file as it reads it, line by line: each input is played and checked
    /// as soon as its line is read, so memory stays the same however long the log. A
    /// malformed line ends the reading: the report then holds every game and input before
    /// it, checked, and `logError` the line's error; a file that cannot be read has no
    /// games. The log's folder is the only one its inputs may read files from.
    public static func run(logFile path: String, rules override: String? = nil,
                           makeGame: (GameLog.Header, String) throws -> Game = defaultGame) -> Report {
        let folder = PathName.folder(of: path)
        var finished: [GameReport] = []
        var current: GameReplayer?
        var logError: GameLog.FormatError?
        do {
            try GameLog.stream(path) { item in
                switch item {
                case .header(let header, let line):
                    if let done = current?.report { finished.append(done) }
                    current = GameReplayer(header: header, line: line, folder: folder.isEmpty ? "." : folder, rules: override, makeGame: makeGame)
                case .entry(let entry, let line):
                    current?.replay(entry, line: line)
                }
            }
        } catch let error as GameLog.FormatError {
            logError = error
        } catch {
            logError = GameLog.FormatError(file: path, line: 0, message: "\(error)")
        }
        if let done = current?.report { finished.append(done) }
        return Report(games: finished, logError: logError)
    }

    public static func defaultGame(_ header: GameLog.Header, rules: String) throws -> Game {
        try Game(rulesFile: rules, players: header.players, seed: header.seed, params: header.overrides)
    }
}

import Foundation

/// Writes a `GameLog` as a game is played: a header when a game starts, then one line per
/// input with the events it caused. The lines go to `write` (a `--log` file through
/// `AppendingLogFile`, a server's room log, a test's array); queries that change nothing
/// (`state`, `log`, `help`, …) are not inputs and are not written.
///
///     let file = try AppendingLogFile(path: "game.jsonl", protectedPaths: [game.sourcePath])
///     let recorder = GameLogRecorder { file.append($0 + "\n") }
///     recorder.begin(game)
///     let reply = recorder.run("roll", in: session)
public final class GameLogRecorder {
    /// Writes one line (without its newline); returns a warning if it could not.
    public let write: (String) -> String?
    /// The die the games are played with, for the header (`sim:tilt@2`), if any.
    public var die: String?
    /// The game the last header described.
    public private(set) weak var game: Game?
    /// Inputs written since the last header.
    public private(set) var inputCount = 0
    private var begun = false
    /// The first warning `write` returned (later lines are still offered to it).
    public private(set) var warning: String?

    public init(die: String? = nil, write: @escaping (String) -> String?) {
        self.die = die
        self.write = write
    }

    /// Starts a new game in the log: its header, with the events of its start.
    @discardableResult
    public func begin(_ game: Game) -> String? {
        self.game = game
        begun = true
        inputCount = 0
        return emit(GameLog.line(GameLog.Header(game: game, die: die)))
    }

    /// Runs a command line in `session` and logs it (a header first if none was written).
    /// A `load` that replaces the game is logged as it is; `GameReplay` stops there,
    /// since the loaded game's past is in the loaded file, not in this log.
    public func run(_ line: String, in session: GameSession) -> GameSession.Reply {
        if !begun { begin(session.game) }
        let outcome = GameLog.perform(line, in: session)
        if outcome.isInput { log(outcome) }
        return outcome.reply
    }

    /// Applies a typed input in `session` (as `GameSession.run(_:)`) and logs it.
    public func run(_ input: GameInput, in session: GameSession) -> GameSession.Reply {
        if !begun { begin(session.game) }
        let outcome = GameLog.perform(input, in: session)
        log(outcome)
        return outcome.reply
    }

    func log(_ outcome: GameLog.Outcome) {
        inputCount += 1
        let events = outcome.events.map(GameLog.json)
        // A `bot` typed at the REPL is a step of the session's history (undo takes it back),
        // so it is logged as the command; a typed bot input replays outside the session.
        let typed = outcome.typedInput.flatMap { $0.kind == .bot && $0.seat == nil ? nil : $0 }
        let entry = typed.map { GameLog.Entry(n: inputCount, input: $0, t: outcome.time, events: events, error: outcome.error) }
            ?? GameLog.Entry(n: inputCount, command: outcome.input, t: outcome.time, events: events, error: outcome.error)
        emit(GameLog.line(entry))
    }

    /// Makes the bot move of the current player (`Game.playBotMove`) and logs it.
    /// Returns the events it caused; rethrows its error after logging it.
    @discardableResult
    public func playBotMove(_ game: Game) throws -> [GameEvent] {
        if !begun { begin(game) }
        let before = game.events.count
        var failure: Error?
        do { try game.playBotMove() } catch { failure = error }
        let events = Array(game.events.dropFirst(before))
        inputCount += 1
        emit(GameLog.line(GameLog.Entry(n: inputCount, input: GameInput(.bot), t: game.now, events: events.map(GameLog.json),
                                        error: failure.map { "\($0)" })))
        if let failure { throw failure }
        return events
    }

    @discardableResult
    func emit(_ line: String) -> String? {
        let problem = write(line)
        if warning == nil { warning = problem }
        return problem
    }
}

extension GameLog {
    /// What one command line or input did to a session's game.
    public struct Outcome {
        /// The command as typed (words joined by one space), or the input's line.
        public var input: String
        /// The input it was (nil: a command that is not one, or a line that did not parse).
        public var typedInput: GameInput?
        public var reply: GameSession.Reply
        public var events: [GameEvent]
        /// The error the command was refused with, as shown without "error: ".
        public var error: String?
        /// The game clock after it.
        public var time: Int
        /// False for queries that change nothing (they are not logged or replayed).
        public var isInput: Bool
    }

    /// Commands that only look at the game (or write a file): not inputs.
    public static let queryCommands: Set<String> = ["state", "players", "log", "led", "help", "save", "quit", "exit"]

    /// Runs `line` in `session` and collects the events it caused: the one way both the
    /// recorder and `GameReplay` run a command line, so they cannot disagree on what an
    /// input is.
    public static func perform(_ line: String, in session: GameSession, quotes: Bool = true) -> Outcome {
        let game = session.game
        let before = game.events.count
        let reply = session.run(line, quotes: quotes)
        let split = session.lastSplit.flatMap { $0.line == line && $0.quotes == quotes ? $0.words : nil }
        let words = split ?? (try? GameInputLine.words(line, quotes: quotes)) ?? []
        let command = words.first?.typed ?? ""
        let isInput = !command.isEmpty && !command.hasPrefix("#") && !queryCommands.contains(command)
        let events = session.game === game ? Array(game.events.dropFirst(before)) : []
        let typed = words.isEmpty ? line.split(whereSeparator: \.isWhitespace).joined(separator: " ") : words.map(\.typed).joined(separator: " ")
        // The commands that are not inputs (undo, redo, load) say their errors in their reply.
        let error = session.lastInput != nil ? session.lastError
            : session.lastError ?? reply.lines.first(where: { $0.hasPrefix("error: ") }).map { String($0.dropFirst("error: ".count)) }
        return Outcome(input: typed, typedInput: session.lastInput, reply: reply, events: events, error: error,
                       time: session.game.now, isInput: isInput)
    }

    /// Applies a typed input in `session` and collects the events it caused.
    public static func perform(_ input: GameInput, in session: GameSession) -> Outcome {
        let game = session.game
        let before = game.events.count
        let reply = session.run(input)
        let events = session.game === game ? Array(game.events.dropFirst(before)) : []
        return Outcome(input: input.line, typedInput: input, reply: reply, events: events, error: session.lastError,
                       time: session.game.now, isInput: true)
    }
}

import Foundation
import Lua

/// The text commands of a play session (what the REPL and transcripts type), run
/// against a game. Each command returns the lines to show: the events it caused,
/// or a clear error; a failed command leaves the game as it was.
///
///     let session = GameSession(game: game)
///     session.run("roll 3 4")     // ["roll Ann ⚂ ⚃ = 7", "say …", "turn Bob"]
public final class GameSession {
    /// The game being played (`load` replaces it).
    public private(set) var game: Game
    /// Set when a rule script failed during the session (exit status 1).
    public private(set) var sawRuleError = false
    /// What the game printed when it started, and every command since with its output:
    /// what `save` writes (a transcript, so a saved game is also a rule test).
    public private(set) var startLines: [String]
    // No didSet here: an observer given `oldValue` copies the whole history on every
    // append, which made each command cost as much as the game was long.
    public private(set) var steps: [Step] = []
    /// The bytes `steps` hold (inputs and outputs), kept under `maxHistoryBytes`.
    public private(set) var historyBytes = 0
    /// Where `save` and `load` may write and read.
    public var files: FileScope
    /// The real paths of the transcripts being loaded around this session (outermost
    /// first): a `load` of one of them again is a cycle.
    var loadChain: [String] = []
    /// A `load` refused for a cycle or the depth limit: it fails every load around it too.
    var loadFailure: String?
    /// Inputs `undo` took back, the next to redo last.
    var redoStack: [String] = []
    var redoing = false
    /// The input the last command line was (nil: it was a query or did not parse), and
    /// what became of it: what a log records and a fuzzer checks, without reading text.
    public internal(set) var lastInput: GameInput?
    public internal(set) var lastOutcome: GameOutcome?
    /// The error the last command line or input was refused with, as shown without "error: ".
    public internal(set) var lastError: String?
    /// Rule tests name rules files relative to themselves; so do the games they `load`.
    var namesRulesAsTranscripts = false
    /// The player this session plays as (`play --seat NAME`): it then shows only what
    /// that player sees (their view for `state`, their events; others' secret rolls as
    /// hidden). Nil: the designer's session, which shows everything, private events
    /// marked with their audience.
    public var seat: String? {
        didSet { startLines = visibleLines(game.events.dropFirst()) }
    }

    /// The longest command line taken (longer is an error, not a crash or a hang).
    public static let maxLineBytes = 65_536
    /// The history a session keeps (for `undo` and `save`); when full, commands are refused.
    public static let maxSteps = 100_000
    public static let maxHistoryBytes = 16 << 20
    /// This session's history limit (the defaults above; smaller in tests).
    public var historyLimit = (steps: GameSession.maxSteps, bytes: GameSession.maxHistoryBytes)
    /// The longest `tick`: one day of game time.
    public static let maxTickMilliseconds = 86_400_000
    /// The largest value `roll V...` takes for one die (exploding dice show more than their sides).
    public static let maxRollValue = 1_000_000

    public struct Step {
        public var input: String
        public var output: [String]
        /// Whether the command changed the game (so `undo` takes it back).
        public var changedGame: Bool

        var bytes: Int { output.reduce(input.utf8.count) { $0 + $1.utf8.count + 1 } }
    }

    public init(game: Game, files: FileScope = .workingDirectory) {
        self.game = game
        self.files = files
        startLines = game.events.dropFirst().map(\.description)
    }

    /// Events as this session shows them: all of them, or those the seat may see.
    func visibleLines<S: Sequence>(_ events: S) -> [String] where S.Element == GameEvent {
        guard let seat else { return events.map(\.description) }
        return events.compactMap { $0.seen(by: seat)?.description }
    }

    public struct Reply {
        public var lines: [String]
        public var quit = false
    }

    static let help: [(String, String)] = [
        ("roll [V...|tilt|short]", "roll the declared dice, given values, or a flagged roll"),
        ("roll keep P... [= V...]", "keep the dice at positions P of your last roll, roll the others (or give their values V)"),
        ("ACTION [ARGS...]", "an action the rules declare, as the current player"),
        ("as NAME COMMAND", "act as another player, e.g. 'as Bob snap'"),
        ("tick DURATION", "advance the game clock, e.g. 'tick 500ms', 'tick 2s'"),
        ("state", "show g.state and the players"),
        ("view [NAME]", "what player NAME may see (the rules' view hook); 'view -' for a spectator"),
        ("players", "list the players"),
        ("log [N]", "show the last N events (all by default)"),
        ("led", "what each face shows now"),
        ("restart", "start a new game with the same players"),
        ("bot", "the current player's bot makes their move"),
        ("skip", "pass the current player's turn on without a move (rules with skip_absent = true)"),
        ("undo [N]", "take back the last roll, action, tick or restart (or the last N)"),
        ("redo", "play again an input undo took back"),
        ("params", "show the params: each value, and whether --set or the file gave it"),
        ("save FILE [--force]", "save the game as its seed and inputs (a transcript: also a rule test)"),
        ("load FILE", "replay a saved game and continue it"),
        ("reload", "reload the rules file, keeping the game in progress"),
        ("help [COMMAND]", "list the commands, or explain one"),
        ("quit", "leave"),
    ] + deviceHelp

    /// What tab completion offers: the commands, the rules' actions, the players.
    public var completionWords: [String] {
        let commands = Self.help.compactMap { entry -> String? in
            let word = String(entry.0.prefix { $0 != " " })
            return word == word.lowercased() ? word : nil
        }
        var seen = Set<String>()
        return (commands + ["tilt", "short", "keep"] + game.rules.actions + game.playerNames).filter { seen.insert($0).inserted }
    }

    /// What tab completion offers after `text` (the line up to the word being typed):
    /// the argument choices the rules declare for an action (`rules.choices`), also
    /// after `as NAME`; empty when the rules declare none.
    public func completions(after text: String) -> [String] {
        var words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.first == "as", words.count >= 2 { words.removeFirst(2) }
        guard let action = words.first, words.count >= 1, game.rules.actions.contains(action) else { return [] }
        // The next argument of every legal argument list that starts as typed (the whole
        // list for one argument), from the rules' one enumeration of moves.
        guard let lists = try? game.legalArguments(of: action) else { return game.rules.choices[action] ?? [] }
        let typed = Array(words.dropFirst())
        var seen = Set<String>()
        return lists.compactMap { list -> String? in
            let words = list.map(\.description)
            guard words.count > typed.count, Array(words.prefix(typed.count)) == typed else { return nil }
            return seen.insert(words[typed.count]).inserted ? words[typed.count] : nil
        }
    }

    /// Runs one command line (`quotes` false: a line written before quoting existed, in
    /// which a `"` is an ordinary character).
    /// The last line `run` split into words, so that a log recording it (`GameLog.perform`)
    /// does not split it again: the same line read the same way gives the same words.
    var lastSplit: (line: String, quotes: Bool, words: [GameInputLine.Word])?

    public func run(_ line: String, quotes: Bool = true) -> Reply {
        guard line.utf8.count <= Self.maxLineBytes else {
            return Reply(lines: ["error: the line is longer than \(Self.maxLineBytes) bytes, the most a command may have"])
        }
        (lastInput, lastOutcome, lastError) = (nil, nil, nil)
        // A comment is not read for quotes: "# say \"hi" is still a comment.
        if line.drop(while: \.isWhitespace).hasPrefix("#") { return Reply(lines: []) }
        let words: [GameInputLine.Word]
        do { words = try GameInputLine.words(line, quotes: quotes) } catch {
            return Reply(lines: [GameEvent.oneLine("error: \(error)")])
        }
        lastSplit = (line, quotes, words)
        guard let first = words.first else { return Reply(lines: []) }
        let command = first.text
        if command == "quit" || command == "exit" { return Reply(lines: [], quit: true) }
        let arguments = words.dropFirst().map(\.text)
        switch command {
        case "undo":
            guard arguments.count <= 1 else { return Reply(lines: ["error: usage: undo [N]"]) }
            guard let count = arguments.isEmpty ? 1 : Int(arguments[0]), (1...Game.undoDepth).contains(count) else {
                return Reply(lines: ["error: undo takes a number of inputs from 1 to \(Game.undoDepth), got '\(arguments[0])'"])
            }
            return Reply(lines: undo(count))
        case "redo":
            guard arguments.isEmpty else { return Reply(lines: ["error: usage: redo"]) }
            guard let input = redoStack.popLast() else { return Reply(lines: ["error: nothing to redo"]) }
            redoing = true
            defer { redoing = false }
            let lines = run(input).lines
            (lastInput, lastOutcome) = (nil, nil)  // a log keeps the command: a replay redoes from its own history
            return Reply(lines: ["redo: \(input)"] + lines)
        case "save":
            let force = arguments.count == 2 && arguments[1] == "--force"
            guard arguments.count == 1 || force else { return Reply(lines: ["error: usage: save FILE [--force]"]) }
            return Reply(lines: save(to: arguments[0], force: force).map(GameEvent.oneLine))
        case "load":
            guard arguments.count == 1 else { return Reply(lines: ["error: usage: load FILE"]) }
            return Reply(lines: load(from: arguments[0]).map(GameEvent.oneLine))
        default: break
        }
        return record(words.map(\.typed).joined(separator: " ")) {
            try execute(command, Array(words.dropFirst()), player: nil)
        }
    }

    /// Applies a typed input (a log's, a die's, a fuzzer's) as the REPL line `input.line`
    /// would, without going through text; `lastOutcome` says what became of it.
    public func run(_ input: GameInput) -> Reply {
        (lastInput, lastOutcome, lastError) = (input, nil, nil)
        return record(input.line) {
            try applyThrowing(input)
            return nil
        }
    }

    /// Runs `body` as one step of the history (`text` is what a transcript shows): the
    /// lines it returns, else the events it caused, else its error.
    func record(_ text: String, _ body: () throws -> [String]?) -> Reply {
        if steps.count >= historyLimit.steps || historyBytes >= historyLimit.bytes {
            let full = "the session's history is full (\(historyLimit.steps) commands or \(historyLimit.bytes) bytes); "
                + "'save FILE' keeps the game, 'undo' frees a step"
            lastError = full  // a die link or a log reads the refusal from here
            return Reply(lines: ["error: " + full])
        }
        let before = game.events.count, generation = game.undoGeneration
        var lines: [String]
        do {
            lines = try body() ?? visibleLines(game.events.dropFirst(before))
        } catch {
            if case GameError.script(let failure) = error, !failure.isRefusal { sawRuleError = true }
            // error("message", 0) refuses the input (like a typo); anything else is a rule failure.
            if let failure = error as? ReloadFailure, case .script = failure.cause { sawRuleError = true }
            lastError = GameEvent.oneLine("\(error)")
            lines = ["error: \(error)"]
        }
        lines = lines.map(GameEvent.oneLine)
        let step = Step(input: text, output: lines, changedGame: game.undoGeneration != generation)
        historyBytes += step.bytes
        steps.append(step)
        if step.changedGame && !redoing { redoStack.removeAll() }  // a new line of play: nothing left to redo
        return Reply(lines: lines)
    }

    /// Takes back the last `count` commands that changed the game (and the commands
    /// after them); `redo` plays them again.
    func undo(_ count: Int = 1) -> [String] {
        var lines: [String] = []
        for _ in 0..<count {
            guard let last = steps.lastIndex(where: \.changedGame), game.canUndo else { break }
            do { try game.undo() } catch { return lines + ["error: \(error)"] }
            let input = steps[last].input
            historyBytes -= steps[last...].reduce(0) { $0 + $1.bytes }
            steps.removeSubrange(last...)
            redoStack.append(input)
            lines.append("undone: \(input)")
        }
        if lines.isEmpty { return ["error: nothing to undo"] }
        if lines.count < count {  // say how far it went, not silently fewer
            let why = steps.contains(where: \.changedGame) ? "undo keeps only the last \(Game.undoDepth) inputs" : "nothing earlier to undo"
            lines.append("undid \(lines.count) of \(count): \(why)")
        }
        return lines
    }

    /// The params as the game has them: value, and where it came from.
    func describeParams() -> [String] {
        let fixed = Dictionary(game.overrides, uniquingKeysWith: { $1 })
        var lines = game.rules.params.map { name, value in
            "\(name) = \(value)" + (fixed[name] != nil ? " (--set)" : "")
        }
        if game.rules.param("dice") == nil { lines.append("dice = \(game.rules.dice)" + (fixed["dice"] != nil ? " (--set)" : "")) }
        return lines
    }

    /// The session as a transcript: the rules (relative to `file`), players, seed and
    /// overrides, then each command with its output.
    public func transcript(for file: String) -> String {
        var lines = ["# Saved with dicehost play; `load` continues it, `dicehost test` checks it.",
                     "rules: \(Transcript.relativePath(game.sourcePath, from: file))",
                     "players: \(game.playerNames.joined(separator: ", "))", "seed: \(game.seed)"]
        lines += game.overrides.map { "set: \($0.0)=\($0.1)" }
        lines += [""] + startLines
        // Only what changed the game: help, state, typos, refused inputs and reloads are left out.
        for step in steps where step.changedGame { lines += ["> " + step.input] + step.output }
        return lines.joined(separator: "\n") + "\n"
    }

    func save(to file: String, force: Bool = false) -> [String] {
        do {
            let path = try files.pathForWriting(file)
            var writer = files.writer
            writer.protectedPaths = [game.sourcePath] + game.lua.loadedModulePaths
            writer.force = force
            try writer.write(transcript(for: path), to: path)
        } catch let error as SafeFileWriter.WriteError {
            return ["error: cannot write \(file): \(error.reason)"]
        } catch {
            return ["error: \(error)"]
        }
        let saved = steps.filter(\.changedGame).count
        return ["saved \(saved) command\(saved == 1 ? "" : "s") to \(file)"]
    }

    /// Replays a saved game (or any transcript) and continues from its end; the current
    /// game is kept if the file cannot be read or its rules do not load.
    func load(from file: String) -> [String] {
        let saved: Transcript
        let loaded: Game
        let real: String
        loadFailure = nil
        do {
            let path = try files.pathForReading(file)
            real = FileScope.realPath(path)
            if let start = loadChain.firstIndex(of: real) {
                let cycle = (loadChain[start...] + [real]).map { PathName.lastComponent(of: $0) }.joined(separator: " -> ")
                loadFailure = "error: cannot load \(file): it is already being loaded (a cycle: \(cycle))"
                return [loadFailure ?? ""]
            }
            guard loadChain.count < FileScope.maxLoadDepth else {
                loadFailure = "error: cannot load \(file): loads nest more than \(FileScope.maxLoadDepth) deep"
                return [loadFailure ?? ""]
            }
            saved = try Transcript(path: path)
            loaded = namesRulesAsTranscripts ? try saved.makeGame(limits: game.lua.limits)
                : try Game(rulesFile: saved.rulesPathFromWorkingDirectory, players: saved.players, seed: saved.seed,
                           params: saved.overrides, limits: game.lua.limits) // the embedder's limits go on
        } catch {
            return ["error: \(error)"]
        }
        let replay = GameSession(game: loaded, files: files.loading(from: real))
        replay.historyLimit = historyLimit
        replay.loadChain = loadChain + [real]
        replay.namesRulesAsTranscripts = namesRulesAsTranscripts
        for step in saved.steps {
            _ = replay.run(step.input)
            if let failure = replay.loadFailure {  // the game stays as it was
                loadFailure = failure
                return [failure]
            }
        }
        let differing = zip(saved.steps, replay.steps).filter { $0.0.expected != $0.1.output }.map(\.0.input)
        (game, startLines, steps, sawRuleError) = (loaded, replay.startLines, replay.steps, sawRuleError || replay.sawRuleError)
        historyBytes = replay.historyBytes
        redoStack = []
        var lines = ["loaded \(file): \(game.rules.name), \(game.playerNames.joined(separator: ", ")), \(steps.count) command\(steps.count == 1 ? "" : "s") replayed"]
        if let first = differing.first {
            lines.append("warning: \(differing.count) command\(differing.count == 1 ? "" : "s") gave different output than when saved (the rules changed?), first: \(first)")
        }
        return lines
    }

    /// Runs a command; returns lines to show instead of the new events, if any.
    func execute(_ command: String, _ words: [GameInputLine.Word], player: String?) throws -> [String]? {
        if let input = try input(command, words, player: player) {
            lastInput = input
            try applyThrowing(input)
            return nil
        }
        let args = words.map(\.text)
        switch command {
        case "help" where !args.isEmpty:
            let wanted = args[0]
            if let entry = Self.help.first(where: { $0.0.prefix { $0 != " " } == wanted }) { return ["\(entry.0)  \(entry.1)"] }
            if game.rules.actions.contains(wanted) { return ["\(wanted) [ARGS...]  an action of \(game.rules.name), as the current player (or 'as NAME \(wanted)')"] }
            throw GameError.refused("no command '\(wanted)'" + didYouMean(wanted) + " (try 'help')")
        case "help":
            return Self.help.map { "\($0.0.padding(toLength: 24, withPad: " ", startingAt: 0)) \($0.1)" }
                + (game.rules.actions.isEmpty ? [] : ["actions: " + game.rules.actions.joined(separator: ", ")])
        case "as":
            guard args.count >= 2 else { throw GameError.refused("usage: as NAME COMMAND") }
            guard player == nil, args[1] != "as" else { throw GameError.refused("'as' cannot be nested: name one player, e.g. 'as Bob roll'") }
            return try execute(args[1], Array(words.dropFirst(2)), player: args[0])
        case "state":
            if let seat { return try game.viewLines(for: seat) }
            return describeState()
        case "view":
            guard args.count <= 1 else { throw GameError.refused("usage: view [NAME], or 'view -' for a spectator") }
            let viewer: String? = args.first == "-" ? nil : (args.first ?? seat)
            if let seat, viewer != seat {
                throw GameError.refused("this session is seated as \(seat): 'view' shows only \(seat)'s view")
            }
            if args.isEmpty && seat == nil { throw GameError.refused("usage: view NAME (a player: \(game.playerNames.joined(separator: ", "))), or 'view -' for a spectator") }
            return try game.viewLines(for: viewer)
        case "params": return describeParams()
        case "players":
            return game.playerNames.map { name in
                let marker = name == game.currentPlayer ? "* " : "  "
                return marker + name + (game.lua.get(game.player(name).tableRef ?? game.gameTable, "eliminated").isTruthy ? " (out)" : "")
            }
        case "log":
            let all = seat == nil ? game.events.map(\.timestamped) : game.events.compactMap { $0.seen(by: seat)?.timestamped }
            guard let text = args.first else { return all }
            guard args.count == 1, let n = Int(text), n >= 1 else {
                throw GameError.refused("usage: log [N], N a whole number of events from 1, got '\(args.joined(separator: " "))'")
            }
            return Array(all.suffix(n))
        case "led":
            return game.led.colors(at: game.now).enumerated().map { "face \($0.offset + 1): \($0.element)" }
        default:
            throw GameError.refused("unknown command '\(command)'" + didYouMean(command) + " (try 'help')")
        }
    }

    /// ": did you mean 'roll'?" when `typed` is close to a command or an action, else "".
    func didYouMean(_ typed: String) -> String {
        let commands = Self.help.map { String($0.0.prefix { $0 != " " }) }.filter { $0 == $0.lowercased() }
        return NearestWord.to(typed, among: commands + game.rules.actions).map { ": did you mean '\($0)'?" } ?? ""
    }

    /// A reload that did not take: the game goes on under the rules it had.
    struct ReloadFailure: Error, CustomStringConvertible {
        let cause: GameError
        var description: String { "reload failed, the old rules still run: \(cause)" }
    }

    /// "500ms", "2s", "1.5s", "250" (ms); nil unless from 0 to `maxTickMilliseconds`.
    static func milliseconds(_ text: String) -> Int? {
        let limit = Double(maxTickMilliseconds)
        func checked(_ ms: Double?) -> Int? {
            guard let ms, ms.isFinite, ms >= 0, ms <= limit else { return nil }
            return Int(ms.rounded())
        }
        // Only digits and one point: no "inf", "nan", "0x10", "1e9", signs or spaces.
        func number(_ digits: Substring, fractional: Bool) -> Double? {
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || (fractional && $0 == ".")) }),
                  digits.filter({ $0 == "." }).count <= 1, digits.contains(where: \.isNumber) else { return nil }
            return Double(digits)
        }
        if text.hasSuffix("ms") { return checked(number(text.dropLast(2), fractional: false)) }
        if text.hasSuffix("s") { return checked(number(text.dropLast(), fractional: true).map { $0 * 1000 }) }
        return checked(number(Substring(text), fractional: false))
    }

    /// Action arguments: integers, numbers, true/false, else strings.
    static func argument(_ text: String) -> LuaValue {
        if let i = Int64(text) { return .integer(i) }
        // Finite numbers only: "nan", "inf" and "1e999" stay strings.
        if let d = Double(text), d.isFinite { return .number(d) }
        if text == "true" { return .boolean(true) }
        if text == "false" { return .boolean(false) }
        return .string(text)
    }

    /// g.state and each player's fields, keys sorted, nested tables inline; bounded in
    /// time and size however big the state is (see `StateRenderer`).
    public func describeState() -> [String] {
        game.leavingUnchanged(restoringLua: false) {
            var renderer = StateRenderer(lua: game.lua)
            var lines = [renderer.line("state: ", game.state)]
            for name in game.playerNames {
                lines.append(renderer.line("\(name): ", game.player(name), skip: ["name", "seat", "last_roll"]))
            }
            return lines
        }
    }

    func render(_ value: LuaValue, depth: Int, skip: Set<String> = []) -> String {
        game.leavingUnchanged(restoringLua: false) {
            var renderer = StateRenderer(lua: game.lua)
            return renderer.render(value, depth: depth, skip: skip)
        }
    }
}

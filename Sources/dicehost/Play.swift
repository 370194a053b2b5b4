import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct Play: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a game from a rule script, reading commands line by line.",
            discussion: """
                Reads commands from standard input ('help' lists them). Without a terminal it
                echoes nothing extra and prints plain text, so a session can be piped in and
                its output compared. Exits 0 at end of input, 1 if a rule error occurred.
                """
        )

        @Argument(help: "The rule script, e.g. rules/race.lua.")
        var rules: String

        @OptionGroup var table: TableOptions

        @Option(help: "Seed of the game's random generator (default: random, printed).")
        var seed: UInt64?

        @Flag(help: "Let the rules' bot policies play until the game ends (with --watch: again after each reload).")
        var auto = false

        @Flag(help: "Reload the rules when the file, or a file it requires, is saved (within 100 ms).")
        var watch = false

        @Option(help: "Record the session as a rule test (transcript) in this file.")
        var record: String?

        @Option(help: "Append the game to this file as it happens, as JSON Lines (a header, then each input with its events): 'dicehost replay FILE' checks it, 'dicehost replay FILE --text' shows the events.")
        var log: String?

        @Option(help: "Play against a simulated smart die: 'sim', or 'sim:FAULTS' with FAULTS from connect-fails[@N], auth-fails, disconnect@N, tilt@N, short@N, low-battery@N (e.g. sim:tilt@2,disconnect@3); 'pixels-sim[:FAULTS]' is a simulated Pixels die speaking the protocol's bytes (auth-fails: it says it is a d20). 'roll' throws it; 'disconnect' and 'connect' drop and restore it.")
        var die: String?

        @Flag(help: "Let --record replace an existing file that is not a transcript.")
        var force = false

        @Option(help: "Play as this player: show only what they see (their view for 'state', their events, others' secret rolls as hidden). The others are typed with 'as NAME', or played by their bots with --auto-others.")
        var seat: String?

        @Flag(help: "With --seat: the rules' bots play every other player's moves.")
        var autoOthers = false

        func run() throws {
            let params = table.params
            var dieChoice: DieConsole.Choice?
            if let die {
                do { dieChoice = try DieConsole.choice(from: die) } catch {
                    printError("dicehost: --die: \(error)")
                    throw ExitStatus.usage
                }
                if auto {
                    printError("dicehost: --die: the die's rolls and --auto's bot rolls cannot both play; choose one")
                    throw ExitStatus.usage
                }
            }
            if autoOthers && seat == nil {
                printError("dicehost: --auto-others plays the players other than --seat NAME; give --seat")
                throw ExitStatus.usage
            }
            if seat != nil && auto {
                printError("dicehost: --seat plays one player yourself and --auto plays them all; for bots at the other seats use --auto-others")
                throw ExitStatus.usage
            }
            let seed = self.seed ?? UInt64.random(in: 0...999_999)
            let names = try table.playerNames(rules: rules)
            if let seat, !names.contains(seat) {
                printError("dicehost: --seat: no player '\(seat)' (players: \(names.joined(separator: ", ")))")
                throw ExitStatus.usage
            }
            let game: Game
            do {
                game = try Game(rulesFile: rules, players: names, seed: seed, params: params)
            } catch {
                throw ExitStatus.loadFailure(error)
            }
            let protected = [game.sourcePath] + game.lua.loadedModulePaths
            let recorder = SafeFileWriter(protectedPaths: protected, force: force, forceHint: "--force")
            if let record {
                do { try recorder.check(record) } catch {
                    printError("dicehost: --record: \(error)")
                    throw ExitStatus.usage
                }
            }
            var logRecorder: GameLogRecorder?
            if let log {
                do {
                    let file = try AppendingLogFile(path: log, protectedPaths: protected)
                    logRecorder = GameLogRecorder(die: die) { line in file.append(line + "\n").map { "dicehost: \($0)" } }
                } catch {
                    printError("dicehost: --log: \(error)")
                    throw ExitStatus.usage
                }
            }
            var output = PlayOutput(renderer: .forStandardOutput(), recorder: logRecorder)
            output.begin(game)
            if self.seed == nil { output.show(["seed \(seed)"]) }
            output.show(["\(game.rules.name): \(names.joined(separator: ", "))"])
            output.show(game.rules.warnings.map { "warning: " + $0 })
            Interrupts.install()
            let session = GameSession(game: game)
            session.seat = seat
            output.show(session.startLines)
            if seat != nil { output.show(["you play \(seat ?? "")" + (autoOthers ? "; bots play the others" : "; type 'as NAME …' for the others")]) }
            // --auto-others: the bots move until it is the seat's turn (or the game ends).
            let playOthers = {
                guard autoOthers, let seat else { return }
                var moves = 0
                while !session.game.isOver, session.game.currentPlayer != seat, moves < Self.autoMoveLimit {
                    let reply = Interrupts.whileRunning(session.game.lua) { output.run("bot", in: session) }
                    output.show(reply.lines)
                    moves += 1
                    if reply.lines.first?.hasPrefix("error:") == true { break }
                }
            }
            playOthers()
            let dieConsole: DieConsole?
            do { dieConsole = try dieChoice.map { try DieConsole(session: session, choice: $0, seed: seed, recorder: logRecorder) } } catch {
                printError("dicehost: --die: \(error)")
                throw ExitStatus.usage
            }
            if let dieConsole { output.show(dieConsole.start()) }
            defer {
                if let record {
                    var writer = recorder
                    writer.protectedPaths = [session.game.sourcePath] + session.game.lua.loadedModulePaths
                    do { try writer.write(session.transcript(for: record), to: record) } catch {
                        printError("dicehost: --record: \(error)")
                    }
                }
            }
            let watcher = watch ? RulesWatcher(game: game) : nil
            if let watcher { output.show(["watching \(watcher.watchedFiles.joined(separator: ", "))"]) }
            if auto {
                if try !playAutomatically(session.game, output: &output) && !watch { throw ExitStatus.failure }
                guard let watcher else { return }
                try autoReplayOnSave(watcher, names: names, seed: seed, params: params, output: &output)
                return
            }
            let input = LineInput()
            let editor = isatty(STDIN_FILENO) != 0 ? LineEditor() : nil
            let interactive = editor != nil
            // Between keystrokes: reload on a save; true if it printed.
            let idle = { () -> Bool in
                guard let watcher, !watcher.changedFiles().isEmpty else { return false }
                let reply = Interrupts.whileRunning(session.game.lua) { output.run("reload", in: session) }
                if interactive { output.clearPromptLine() }
                output.show(reply.lines)
                watcher.watch(session.game)
                return true
            }
            var watchedGame = session.game
            while true {
                let event: LineInput.Event
                if let editor {
                    LineEditor.words = session.completionWords
                    LineEditor.wordsAfter = { session.completions(after: $0) }
                    event = editor.next(prompt: output.renderer.prompt(for: session.game), idle: idle)
                } else {
                    event = input.next { _ = idle() }
                }
                switch event {
                case .end:
                    if interactive { output.show([""]) }
                    if session.sawRuleError { throw ExitStatus.failure }
                    return
                case .interrupted:
                    output.show(["^C"])
                case .woken:
                    continue
                case .line(let line):
                    if let dieConsole, let lines = Interrupts.whileRunning(session.game.lua, { dieConsole.handle(line) }) {
                        if interactive { output.animateSpins(lines) } else { output.show(lines) }
                        continue
                    }
                    let reply = Interrupts.whileRunning(session.game.lua) { output.run(line, in: session) }
                    dieConsole?.sync()
                    let isTick = line.split(separator: " ").first == "tick"
                    output.show(isTick ? Renderer.foldingRepeats(reply.lines) : reply.lines)
                    playOthers()
                    if reply.quit {
                        if session.sawRuleError { throw ExitStatus.failure }
                        return
                    }
                    if let watcher, session.game !== watchedGame {  // `load` brought another game
                        watcher.watch(session.game)
                        watchedGame = session.game
                    }
                }
            }
        }

        /// Lets the bots play to the end; false if a rule error stopped the game.
        func playAutomatically(_ game: Game, output: inout PlayOutput) throws -> Bool {
            var moves = 0
            while !game.isOver && moves < Self.autoMoveLimit {
                let before = game.events.count
                do { try Interrupts.whileRunning(game.lua) { try output.playBotMove(game) } } catch {
                    output.show(["error: \(error)"])
                    return false
                }
                output.show(game.events.dropFirst(before).map(\.description))
                moves += 1
            }
            if !game.isOver { output.show(["stopped after \(moves) moves: the game did not end"]) }
            return true
        }

        /// --auto --watch: after each save, the same game (same seed) replays under the new rules.
        func autoReplayOnSave(_ watcher: RulesWatcher, names: [String], seed: UInt64, params: [(String, String)],
                              output: inout PlayOutput) throws {
            let input = LineInput()
            output.show(["replaying after each save (Ctrl-C or end of input leaves)"])
            while true {
                // Lines typed meanwhile are ignored; a save wakes the wait.
                switch input.next(until: { !watcher.changedFiles().isEmpty }) {
                case .end, .interrupted: return
                case .line: continue
                case .woken: break
                }
                do {
                    let game = try Game(rulesFile: rules, players: names, seed: seed, params: params)
                    output.show(["reloaded \(rules): \(game.rules.name), replaying seed \(seed)"])
                    output.begin(game)
                    output.show(game.events.dropFirst().map(\.description))
                    _ = try playAutomatically(game, output: &output)
                    watcher.watch(game)
                } catch {
                    output.show(["reload failed: \(error)"])
                }
            }
        }

        static let autoMoveLimit = 10_000
    }
}

/// Where play output goes: standard output (rendered for a terminal); inputs go through
/// the --log file's recorder when there is one.
struct PlayOutput {
    let renderer: Renderer
    let recorder: GameLogRecorder?

    init(renderer: Renderer, recorder: GameLogRecorder? = nil) {
        self.renderer = renderer
        self.recorder = recorder
    }

    func show(_ lines: [String]) {
        for line in lines { print(renderer.render(line)) }
        fflush(stdout)
    }

    /// Starts a game in the --log file.
    func begin(_ game: Game) {
        guard let recorder else { return }
        logging(recorder) { recorder.begin(game) }
    }

    /// Runs a command line, logging it.
    func run(_ line: String, in session: GameSession) -> GameSession.Reply {
        guard let recorder else { return session.run(line) }
        return logging(recorder) { recorder.run(line, in: session) }
    }

    /// A bot move, logged.
    func playBotMove(_ game: Game) throws {
        guard let recorder else { return try game.playBotMove() }
        try logging(recorder) { _ = try recorder.playBotMove(game) }
    }

    /// The first write failure of the log is shown once; the game goes on.
    @discardableResult
    private func logging<T>(_ recorder: GameLogRecorder, _ body: () throws -> T) rethrows -> T {
        let before = recorder.warning
        defer { if before == nil, let warning = recorder.warning { printError(warning) } }
        return try body()
    }

    /// At a terminal, a tumbling die's glyph spins in place before its line is shown.
    func animateSpins(_ lines: [String]) {
        for line in lines {
            if line.hasPrefix("die rolling ") {
                for glyph in line.dropFirst("die rolling ".count).split(separator: " ") {
                    print("\r\u{1B}[K" + renderer.render("die rolling " + glyph), terminator: "")
                    fflush(stdout)
                    usleep(80_000)
                }
                print("\r\u{1B}[K", terminator: "")
            }
            show([line])
        }
    }

    func clearPromptLine() {
        print("\r\u{1B}[K", terminator: "")
    }
}

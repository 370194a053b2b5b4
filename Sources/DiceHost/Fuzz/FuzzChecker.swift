import Lua

/// Plays inputs (typed, or command lines as typed in `dicehost play`) on a game and checks it
/// after each one; at the end, the checks that need the whole run (the game ends with
/// the bots playing on, the same inputs give the same events, hidden dice leak nowhere).
/// The fuzzer drives one per case; a rule test with `# check: …` lines runs its inputs
/// through one too, so a shrunk case fails as a test exactly as it failed in the fuzzer.
public final class FuzzChecker {
    /// One input as it was played.
    public struct Step {
        public var command: String
        /// The player who made it: the `as NAME`, else whose turn it was.
        public var actor: String?
        public var output: [String]
        /// The input as the fuzzer made it (nil: a command line of a rule test), played
        /// again as itself.
        public var input: FuzzInput?
    }

    public let checks: Set<FuzzCheck>
    /// Bot moves the game gets to end in (`ends`).
    public let moveLimit: Int
    public let session: GameSession
    public private(set) var steps: [Step] = []
    let makeGame: () throws -> Game
    /// What `undo` took back, newest last: the state before the undo and the output of
    /// the input it took back (a `redo` must give both again).
    var undone: [(fingerprint: FuzzFingerprint, output: [String])] = []
    /// The state after the last input (taken only while `refusal-unchanged` is checked).
    var lastFingerprint: FuzzFingerprint?

    /// Checks `session`'s game from its current position; `makeGame` makes the same game
    /// afresh (for replays).
    public init(session: GameSession, checks: Set<FuzzCheck>, moveLimit: Int = 10_000, makeGame: @escaping () throws -> Game) {
        self.session = session
        self.checks = checks
        self.moveLimit = moveLimit
        self.makeGame = makeGame
    }

    var game: Game { session.game }

    /// Plays one command line (a rule test's); the first check it breaks, if any.
    public func run(_ command: String) -> FuzzFailure? {
        let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
        let actor = words.first == "as" && words.count > 1 ? words[1] : game.currentPlayer
        return check(command, input: nil, actor: actor, isUndo: words.first == "undo", isRedo: words.first == "redo") { session.run(command) }
    }

    /// Plays one typed input (the fuzzer's); the first check it breaks, if any.
    public func run(_ input: FuzzInput) -> FuzzFailure? {
        let actor = input.seat ?? game.currentPlayer
        return check(input.line, input: input, actor: actor, isUndo: input == .undo, isRedo: input == .redo) { play(input, in: session) }
    }

    /// Plays `input` in `session` as itself.
    func play(_ input: FuzzInput, in session: GameSession) -> GameSession.Reply {
        switch input {
        case .input(let input): return session.run(input)
        case .undo, .redo: return session.run(input.line)
        }
    }

    /// Runs one input (`perform`) and checks the game after it.
    func check(_ command: String, input: FuzzInput?, actor: String?, isUndo: Bool, isRedo: Bool, perform: () -> GameSession.Reply) -> FuzzFailure? {
        let watchesState = checks.contains(.refusalUnchanged) || checks.contains(.undoRedo)
        if watchesState && lastFingerprint == nil { lastFingerprint = game.fuzzFingerprint(session) }
        let before = lastFingerprint
        let undoneOutput = isUndo ? session.steps.last(where: \.changedGame)?.output : nil
        let hadRuleError = session.sawRuleError
        let generation = game.undoGeneration
        let redoDepth = session.redoStack.count
        let reply = perform()
        let changed = game.undoGeneration != generation
        steps.append(Step(command: command, actor: actor, output: reply.lines, input: input))
        let number = steps.count
        // From what the session did, not from its reply's text: an undo moves an input to
        // the redo stack, a redo takes one off it; any other command is refused when the
        // session has an error for it.
        let undid = isUndo && session.redoStack.count > redoDepth
        let redid = isRedo && session.redoStack.count < redoDepth
        let refused = isUndo ? !undid : isRedo ? !redid : session.lastError != nil
        lastFingerprint = watchesState ? game.fuzzFingerprint(session) : nil

        if checks.contains(.noRuleError), !hadRuleError, session.sawRuleError {
            var location: FuzzFailure.ScriptLocation?
            if case .ruleFailure(let failure)? = session.lastOutcome { location = FuzzFailure.ScriptLocation(of: failure) }
            let error = session.lastError.map { "error: " + $0 } ?? reply.lines.joined(separator: " ")
            return FuzzFailure(check: .noRuleError, input: number, message: "input \(number) (\(command)) failed in the rules: \(error)", location: location)
        }
        if checks.contains(.refusalUnchanged), refused, !changed, !isUndo, !isRedo, let before, let after = lastFingerprint, before != after {
            return FuzzFailure(check: .refusalUnchanged, input: number,
                               message: "input \(number) (\(command)) was refused but changed the game: \(Self.firstDifference(before.lines, after.lines))")
        }
        if checks.contains(.undoRedo) {
            if undid, let before, let undoneOutput {
                undone.append((before, undoneOutput))
            } else if redid, let saved = undone.popLast(), let after = lastFingerprint {
                // The log's length is not compared: an undo truncates the log to where the
                // input began, taking a reload's line after it too (a reload is not undone).
                if saved.fingerprint.state != after.state {
                    return FuzzFailure(check: .undoRedo, input: number,
                                       message: "input \(number) (redo) did not give back the state undo took back: \(Self.firstDifference(saved.fingerprint.state, after.state))")
                }
                let output = Array(reply.lines.dropFirst())
                if saved.output != output {
                    return FuzzFailure(check: .undoRedo, input: number,
                                       message: "input \(number) (redo) gave other events than the input undo took back: \(Self.firstDifference(saved.output, output))")
                }
            } else if !refused || isUndo {
                undone.removeAll() // another line of play (or a reload, a tick): redo owes nothing
            }
        }
        if checks.contains(.invariant), let broken = game.brokenInvariantError() {
            return FuzzFailure(check: .invariant, input: number, message: "after input \(number) (\(command)) the invariant is broken: \(broken)",
                               location: FuzzFailure.ScriptLocation(of: broken))
        }
        return nil
    }

    /// The checks of the whole run, after the last input.
    public func finish() -> FuzzFailure? {
        if checks.contains(.deterministic) || checks.contains(.secrets), let failure = replay() { return failure }
        if !checks.isDisjoint(with: [.ends, .noRuleError, .invariant]), let failure = playOn() { return failure }
        return nil
    }

    /// The bots play on from here: the game must end within `moveLimit` moves, without
    /// a move the rules refuse (`ends`), a rule error (`no-rule-error`) or a broken
    /// invariant (`invariant`), each as far as it is checked. The game is played
    /// as a simulation plays it (no events kept, no rollback: it is not used after), each
    /// move under its own budget.
    func playOn() -> FuzzFailure? {
        let after = steps.count
        var moves = 0
        game.recordsEvents = false
        game.transactional = false
        while !game.isOver {
            guard moves < moveLimit else {
                guard checks.contains(.ends) else { return nil }
                return FuzzFailure(check: .ends, input: nil,
                                   message: "the game did not end within \(moveLimit) bot moves after input \(after) (a livelock?); \(game.currentPlayer ?? "nobody") is to move")
            }
            let mover = game.currentPlayer ?? "nobody"
            do {
                try game.playBotMove()
            } catch let error as GameError {
                if case .script(let failure) = error, !failure.isRefusal {
                    guard checks.contains(.noRuleError) else { return nil }
                    return FuzzFailure(check: .noRuleError, input: nil,
                                       message: "bot move \(moves + 1) after input \(after) (by \(mover)) failed in the rules: \(error)",
                                       location: FuzzFailure.ScriptLocation(of: error))
                }
                guard checks.contains(.ends) else { return nil }
                return FuzzFailure(check: .ends, input: nil,
                                   message: "the game cannot go on after input \(after): the move of \(mover)'s bot was refused: \(error)")
            } catch {
                guard checks.contains(.ends) else { return nil }
                return FuzzFailure(check: .ends, input: nil, message: "bot move \(moves + 1) after input \(after) failed: \(error)")
            }
            moves += 1
            if checks.contains(.invariant), let broken = game.brokenInvariantError() {
                return FuzzFailure(check: .invariant, input: nil,
                                   message: "bot move \(moves) after input \(after) broke the invariant: \(broken)",
                                   location: FuzzFailure.ScriptLocation(of: broken))
            }
        }
        return nil
    }

    /// Plays the inputs again on a fresh game (the same events: `deterministic`) and, in a
    /// game with secret rolls and a view, once per seat with the values of every other
    /// seat's rolls changed: while the seat has received the same events, its view must
    /// be the same, and another seat's secret roll must not change what it receives.
    func replay() -> FuzzFailure? {
        let again: GameSession
        do { again = GameSession(game: try makeGame(), files: session.files) } catch {
            return FuzzFailure(check: .deterministic, input: nil, message: "the game did not start again: \(error)")
        }
        let names = again.game.playerNames
        let secrets = checks.contains(.secrets) && again.game.rules.secretRolls && again.game.hasView
        var others: [(seat: String, session: GameSession)] = []
        if secrets {
            for name in names {
                guard let game = try? makeGame() else { break }
                others.append((name, GameSession(game: game, files: session.files)))
            }
        }
        let sides = again.game.rules.dice.sides
        for (index, step) in steps.enumerated() {
            let number = index + 1
            let start = again.game.events.count
            let lines = step.input.map { play($0, in: again) }?.lines ?? again.run(step.command).lines
            if checks.contains(.deterministic), lines != step.output {
                return FuzzFailure(check: .deterministic, input: number,
                                   message: "input \(number) (\(step.command)) gave other output when the same inputs were played again: \(Self.firstDifference(step.output, lines))")
            }
            var index = 0
            while index < others.count {
                let (seat, other) = others[index]
                let command: String
                let otherStart = other.game.events.count
                if let input = step.input {
                    let changed = step.actor == seat ? input : Self.changingRolledValues(input, sides: sides)
                    command = changed.line
                    _ = play(changed, in: other)
                } else {
                    command = step.actor == seat ? step.command : Self.changingRolledValues(step.command, sides: sides)
                    _ = other.run(command)
                }
                let seen = Self.received(by: seat, again.game.events, from: start)
                let otherSeen = Self.received(by: seat, other.game.events, from: otherStart)
                if seen != otherSeen {
                    let revealed = (again.game.events.dropFirst(start) + other.game.events.dropFirst(otherStart)).contains {
                        if case .reveal = $0.kind { return true } else { return false }
                    }
                    if command != step.command, !revealed {
                        return FuzzFailure(check: .secrets, input: number,
                                           message: "input \(number) (\(step.command), by \(step.actor ?? "?")) is a secret roll, yet \(seat) receives other events when its values differ (\(command)): \(Self.firstDifference(seen, otherSeen))")
                    }
                    others.remove(at: index) // the seat learnt something: from here its view may differ
                    continue
                }
                let view = try? again.game.view(for: seat), otherView = try? other.game.view(for: seat)
                if view != otherView {
                    return FuzzFailure(check: .secrets, input: number,
                                       message: "after input \(number) (\(step.command)) \(seat)'s view depends on dice hidden from \(seat): with the other players' rolled values changed it reads \(otherView.map { "\($0)" } ?? "an error") instead of \(view.map { "\($0)" } ?? "an error"), though \(seat) received the same events")
                }
                index += 1
            }
        }
        return nil
    }

    /// What `seat` received of `events` from `start` on.
    static func received(by seat: String, _ events: [GameEvent], from start: Int) -> [String] {
        guard start < events.count else { return [] }
        return events[start...].compactMap { $0.seen(by: seat)?.description }
    }

    /// `roll V…` (or `as NAME roll V…`) with every value moved to the next face; other
    /// commands as they are.
    static func changingRolledValues(_ command: String, sides: Int) -> String {
        var words = command.split(whereSeparator: \.isWhitespace).map(String.init)
        let rollAt = words.first == "as" ? 2 : 0
        guard sides > 1, words.count > rollAt + 1, words[rollAt] == "roll" else { return command }
        for i in (rollAt + 1)..<words.count {
            guard let value = Int(words[i]), (1...sides).contains(value) else { return command }
            words[i] = String(value % sides + 1)
        }
        return words.joined(separator: " ")
    }

    /// A roll of given values with every value moved to the next face; other inputs as
    /// they are.
    static func changingRolledValues(_ input: FuzzInput, sides: Int) -> FuzzInput {
        guard sides > 1, case .input(var typed) = input, case .roll(.values(let values)) = typed.kind, !values.isEmpty,
              values.allSatisfy({ (1...sides).contains($0) }) else { return input }
        typed.kind = .roll(.values(values.map { $0 % sides + 1 }))
        return .input(typed)
    }

    /// The first line that differs, as "'a' became 'b'".
    static func firstDifference(_ a: [String], _ b: [String]) -> String {
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : nil, y = i < b.count ? b[i] : nil
            if x != y { return "'\(x ?? "(nothing)")' became '\(y ?? "(nothing)")'" }
        }
        return "(no difference)"
    }
}

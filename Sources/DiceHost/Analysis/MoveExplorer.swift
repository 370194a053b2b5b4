import Foundation
import Lua

/// Explores a `MoveGraph` with a `StateExplorer`'s positions (its encoding, decoding and
/// snapshots): every legal move tried from a snapshot, as `odds` tries rolls.
final class MoveExplorer {
    let states: StateExplorer
    let game: Game
    let graph = MoveGraph()
    /// Whether to ask the rules' bot in every position (for `odds --vs solver`).
    var askBot = false
    /// Whether a bot that draws random numbers (a bluff) is noted (`botDrawsRandom`, and
    /// the bot asked no more) instead of making the game not analysable.
    var toleratesDrawingBot = false
    private(set) var botDrawsRandom = false
    /// Whether, under `unordered_dice`, keeps of a position that end with the same set of
    /// values share one play (`KeptRollTargets`; off again after `KeptRollsDiffer`).
    var sharesKeptRolls = false
    /// Keep outcomes taken from another keep of their position instead of played.
    private(set) var sharedKeptRolls = 0
    /// Why every keep was played after all (`KeptRollsDiffer`'s text), when sharing was tried.
    var everyKeepPlayedBecause: String?
    /// What each seat is shown, kept for best play with secrets (nil: not kept).
    var observations: Observations?
    /// The declared actions with each argument list to try (nil: listed per position).
    let actionMoves: [(name: String, lists: [[LuaValue]]?)]

    init(states: StateExplorer, game: Game) throws {
        self.states = states
        self.game = game
        actionMoves = try game.rules.actions.map { action in
            let declared: Game.ActionArguments
            do { declared = try game.declaredArguments(of: action) } catch { throw OddsError.notAnalysable("\(error)") }
            switch declared {
            case .lists(let lists): return (action, lists)
            case .perPosition: return (action, nil)
            case .notListed(let parameters, let isVararg):
                throw OddsError.notAnalysable(Game.notListedMessage(action: action, parameters: parameters, isVararg: isVararg))
            }
        }
    }

    func explore(progress: ((String) -> Void)?) throws -> MoveGraph {
        let lua = game.lua
        let started = lua.random.state
        lua.random.seed(game.seed)
        if started != lua.random.state {
            throw OddsError.notAnalysable("setup drew random numbers (math.random, dice.roll or cards.shuffle), so the starting position depends on the seed")
        }
        states.graph.droppedLastRoll = !states.keepLastRoll
        if observations != nil { game.recordsEvents = true }
        try states.forgetStatistics()
        _ = try states.encodeCurrent()
        graph.terminal.append(states.graph.terminal[0])
        try checkStatistics()
        var next = 0
        var lastReport = DispatchTime.now().uptimeNanoseconds
        while next < graph.count {
            do { try expand(next) } catch let error as OddsError {
                if !states.keepLastRoll && states.watch.observed(lua: lua) { throw LastRollObserved() }
                throw error
            }
            next += 1
            states.explored = next
            if next & 255 == 0 {
                let now = DispatchTime.now().uptimeNanoseconds
                if now - lastReport > 200_000_000 {
                    progress?(try states.budget.check(explored: next, found: graph.count))
                    lastReport = now
                }
            }
        }
        return graph
    }

    /// The position the game is in, added to the graph if new.
    func current() throws -> Int32 {
        let (index, isNew) = try states.encodeCurrent()
        if isNew {
            graph.terminal.append(states.graph.terminal[index])
        }
        return Int32(index)
    }

    /// The argument lists of `action` for `seat`: declared, or listed by its choices
    /// function in the live position (which must draw no random numbers).
    func argumentLists(_ action: (name: String, lists: [[LuaValue]]?), seat: Int) throws -> [[LuaValue]] {
        if let fixed = action.lists { return fixed }
        let lists: [[LuaValue]]
        do { lists = try game.withInputBudget { try game.listedArguments(of: action.name, seat: seat) } } catch {
            throw OddsError.ruleError("choices.\(action.name)(g, \(game.playerName(seat: seat))): \(error)")
        }
        try states.checkRandom("choices.\(action.name)")
        return lists
    }

    /// A move's label: the action and its arguments, as typed ("bid 2 5").
    static func label(action: String, arguments: [LuaValue]) -> String {
        ([action] + arguments.map(\.description)).joined(separator: " ")
    }

    /// Whether an error is the rules refusing the move (not legal here): an input the
    /// host refuses, or an error raised with level 0 (no file and line).
    static func isRefusal(_ error: Error) -> Bool {
        switch error {
        case GameError.refused: return true
        case GameError.script(let lua): return lua.kind == .runtime && lua.file == nil
        default: return false
        }
    }

    func expand(_ index: Int) throws {
        defer { graph.moveStart.append(graph.moves.count) }
        guard graph.terminal[index] == nil else {
            graph.decider.append(-1)
            graph.botMove.append(-1)
            observations?.view.append(contentsOf: repeatElement(0, count: game.playerNames.count))
            return
        }
        // Keeping dice is made from the last roll: positions must hold it.
        if game.rules.keepsDice && !states.keepLastRoll { throw LastRollObserved() }
        try states.restore(index)
        let seat: Int
        do { seat = try game.seat(of: nil) } catch { throw OddsError.ruleError("\(error)") }
        graph.decider.append(Int32(seat - 1))
        let name = game.playerName(seat: seat)
        try observeViews(index)
        // Each move after the first starts from the position decoded again: cheaper than a
        // snapshot of `g` taken here and restored table by table (callgrind, Pig: a decode
        // about 30 k instructions, a restore about 45 k and the snapshot 86 k a position).
        var fresh = true
        func reset() throws {
            if !fresh { try states.restore(index) }
            fresh = false
        }
        // The bot's choice (asked only when measuring it: `askBot`), which must leave the
        // position as it was.
        var botChoice: LuaValue?
        if askBot, case .function = game.hooks.bot {
            fresh = false
            do {
                botChoice = try game.withInputBudget { try game.askBot(seat: seat) }
            } catch { throw OddsError.ruleError("bot(g, \(name)): \(error)") }
            if toleratesDrawingBot && game.lua.random.state != states.fixedRandom {
                // No one move of the bot here (Mia's bluffs): noted, and the bot asked no more.
                botDrawsRandom = true
                askBot = false
                botChoice = nil
                game.lua.random.state = states.fixedRandom
            }
            try states.checkRandom("the bot")
            let (after, _) = try states.encodeCurrent()
            if after != index { throw OddsError.notAnalysable("the bot changed the game when asked what \(name) does (a bot must only choose)") }
        }
        let firstMove = graph.moves.count
        // Roll: a chance node over every outcome of the player's dice (none: no roll move).
        var hasDice = true
        do { _ = try game.dice(forSeat: seat) } catch {
            guard Self.isRefusal(error) else { throw OddsError.ruleError("\(error)") }
            hasDice = false
        }
        if hasDice {
            // Every outcome is played from this same position: the seat and dice the
            // first one checked hold for the rest.
            var checked: Game.CheckedRoll?
            try addChanceMove(BestPlay.Move(label: "roll", action: nil, arguments: []), outcomes: try states.rollOutcomes(seat: seat),
                              index: index, name: name, describe: { "\(name) rolling \($0)" }, reset: reset) {
                try game.roll(values: $0, checked: &checked)
            }
        }
        // Keeping each subset of the last roll's dice, where the rules keep dice.
        if game.rules.keepsDice, let dice = try? game.dice(forSeat: seat), let last = try? game.lastRollValues(seat: seat, dice: dice) {
            // With unordered dice, keeping equal values at other places is the same move:
            // each set of kept values is tried once (the first subset that keeps it).
            var keptSets: Set<[Int]> = []
            let bySet = game.rules.unorderedDice && last.count == dice.count
            let sharing = sharesKeptRolls && bySet && observations == nil
                ? KeptRollTargets(last: last, playsEverything: index % KeptRollTargets.checkEvery == 0) : nil
            for subset in 0..<(1 << dice.count) {
                let positions = (1...dice.count).filter { subset & (1 << ($0 - 1)) != 0 }
                if bySet {
                    guard keptSets.insert(positions.map { last[$0 - 1] }.sorted()).inserted else { continue }
                }
                try addKeepMove(positions, dice: dice, index: index, name: name, reset: reset, sharing: sharing)
            }
        }
        // Every declared action with each declared choice (listed here when the choices
        // are a function of the position).
        for action in actionMoves {
            if action.lists == nil {
                try reset()
                fresh = false
            }
            for arguments in try argumentLists(action, seat: seat) {
                let label = Self.label(action: action.name, arguments: arguments)
                try reset()
                clearEvents()
                do { try game.withInputBudget { try game.act(action.name, arguments: arguments) } } catch {
                    if Self.isRefusal(error) { continue }
                    throw OddsError.ruleError("\(name)'s move \(label): \(error)")
                }
                try states.checkRandom("\(name)'s move \(label)")
                let t = try current()
                let answer = arguments.isEmpty ? Self.luaQuoted(action.name)
                    : "{" + ([Self.luaQuoted(action.name)] + arguments.map(Self.luaLiteral)).joined(separator: ", ") + "}"
                graph.moves.append(BestPlay.Move(label: label, action: action.name, arguments: arguments.map(\.description), botAnswer: answer))
                appendEdge(t, 1, observe(decider: seat - 1, move: label))
                graph.edgeStart.append(graph.edgeTarget.count)
            }
        }
        graph.botMove.append(-1)
        guard let botChoice else { return }
        let label = Self.label(of: botChoice, lua: game.lua)
        if let found = (firstMove..<graph.moves.count).first(where: { graph.moves[$0].label == label }) {
            graph.botMove[index] = Int32(found)
            return
        }
        // A move the declared ones do not list: made as the bot makes it.
        if let positions = try states.keptPositions(botChoice, name: name) {
            guard states.keepLastRoll else { throw LastRollObserved() }
            let dice: DiceNotation
            do { dice = try game.dice(forSeat: seat) } catch { throw OddsError.ruleError("\(error)") }
            let before = graph.moves.count
            try addKeepMove(positions, dice: dice, index: index, name: name, reset: reset, refusalIsAnError: true)
            graph.botOnly.insert(before)
            graph.botMove[index] = Int32(before)
            return
        }
        try reset()
        clearEvents()
        do { try game.withInputBudget { try game.perform(botChoice: botChoice) } } catch {
            throw OddsError.ruleError("\(name)'s bot move \(label): \(error)")
        }
        try states.checkRandom("\(name)'s bot move \(label)")
        let t = try current()
        graph.botOnly.insert(graph.moves.count)
        graph.botMove[index] = Int32(graph.moves.count)
        graph.moves.append(BestPlay.Move(label: label, action: nil, arguments: []))
        appendEdge(t, 1, observe(decider: seat - 1, move: label))
        graph.edgeStart.append(graph.edgeTarget.count)
    }

    /// `roll keep ...` of `positions` as a move when the rules take it: a chance node over
    /// the dice not kept (a refusal makes it no move, or an error for a bot's own choice).
    func addKeepMove(_ positions: [Int], dice: DiceNotation, index: Int, name: String, reset: () throws -> Void,
                     refusalIsAnError: Bool = false, sharing: KeptRollTargets? = nil) throws {
        let label = (["roll keep"] + positions.map(String.init)).joined(separator: " ")
        let answer = "{\"roll\", keep = {" + positions.map(String.init).joined(separator: ", ") + "}}"
        // Unordered dice: each set of values rolled again once, weighted by its orders.
        let outcomes = keptRollOutcomes(sides: dice.sides, count: max(0, dice.count - Set(positions).count))
        var checked: Game.CheckedKeep?
        try addChanceMove(BestPlay.Move(label: label, action: nil, arguments: [], botAnswer: answer), outcomes: outcomes,
                          index: index, name: name, describe: { "\(name) \(label) = \($0)" }, reset: reset,
                          refusalIsAnError: refusalIsAnError, sharing: sharing.map { ($0, positions) }) { values in
            try game.withInputBudget { try game.roll(keeping: positions, rolled: values, checked: &checked) }
        }
    }

    /// The outcomes of `count` dice rolled again after a keep, made once per count.
    lazy var rerolledOutcomes = RerolledOutcomes(unordered: game.rules.unorderedDice)
    func keptRollOutcomes(sides: Int, count: Int) -> RollOutcomes {
        rerolledOutcomes.outcomes(sides: sides, count: count)
    }

    /// A move that is a chance node: `play` each outcome from the position (`reset` puts
    /// it back), an edge per target weighted out of the outcomes' total. Returns false, and
    /// adds no move, when the rules refuse it (unless `refusalIsAnError`). A keep with
    /// `sharing` takes where an outcome leads from another keep of the position that ended
    /// with the same values, where it can (`KeptRollTargets`).
    @discardableResult
    func addChanceMove(_ move: BestPlay.Move, outcomes: RollOutcomes, index: Int, name: String, describe: (String) -> String,
                       reset: () throws -> Void, refusalIsAnError: Bool = false,
                       sharing: (targets: KeptRollTargets, positions: [Int])? = nil, play: ([Int]) throws -> Void) throws -> Bool {
        // Outcomes that reach one position are one edge; with observations kept, only when
        // every seat was also shown the same on the way.
        struct Reached: Hashable { var target: Int32; var shown: UInt64 }
        var groups: [Reached: Int] = [:]
        var reached: [(target: Int32, weight: Int, shown: [UInt64])] = []
        var shuffled: (values: [Int], target: Int32)?
        let decider = Int(graph.decider[index])
        // Where the order is checked (below), the first outcome of mixed values is played.
        let checksOrder = outcomes.unordered && index % StateExplorer.repeatEvery == 0
        var shared = 0
        func add(_ key: Reached, weight: Int32, shown: [UInt64]) {
            if let g = groups[key] {
                reached[g].weight += Int(weight)
            } else {
                groups[key] = reached.count
                reached.append((key.target, Int(weight), shown))
            }
        }
        for (i, values) in outcomes.values.enumerated() {
            let final = sharing.map { $0.targets.finalValues(keeping: $0.positions, rolled: values) }
            if let final, !(checksOrder && shuffled == nil && Set(values).count > 1),
               let t = sharing?.targets.target(of: final, outcome: i) {
                add(Reached(target: t, shown: 0), weight: outcomes.weights[i], shown: [])
                shared += 1
                continue
            }
            try reset()
            clearEvents()
            do { try play(values) } catch {
                // Shared keeps are taken or refused whole: refused past the first outcome,
                // the rules decided by the values too, and every keep must be played.
                if let final, i > 0, Self.isRefusal(error) {
                    throw KeptRollsDiffer(values: final, keep: move.label, refused: true)
                }
                if Self.isRefusal(error) && !refusalIsAnError { return false }
                throw OddsError.ruleError("\(describe(values.map(String.init).joined(separator: " "))): \(error)")
            }
            try states.checkRandom("the roll hook (or a turn hook after it) for \(name)")
            let t = try current()
            let shown = observe(decider: decider, move: move.label)
            if let final, let sharing { try sharing.targets.note(final, reached: t, keep: move.label) }
            add(Reached(target: t, shown: shown.reduce(0, Fingerprint.combine)), weight: outcomes.weights[i], shown: shown)
            if outcomes.unordered, shuffled == nil, Set(values).count > 1 { shuffled = (values, t) }
        }
        if index % StateExplorer.repeatEvery == 0, let (values, target) = shuffled {
            try states.checkOrderDoesNotMatter(values, reached: target, reset: reset, play: play, describe: describe)
        }
        graph.moves.append(move)
        for r in reached { appendEdge(r.target, Double(r.weight) / Double(outcomes.total), r.shown) }
        graph.edgeStart.append(graph.edgeTarget.count)
        sharedKeptRolls += shared
        return true
    }

    func appendEdge(_ target: Int32, _ weight: Double, _ shown: [UInt64]) {
        graph.edgeTarget.append(target)
        graph.edgeWeight.append(weight)
        observations?.edge.append(contentsOf: shown)
    }

    func clearEvents() {
        if observations != nil { game.eventLog.removeAll(keepingCapacity: true) }
    }

    /// What each seat was shown by the step just made (the events since `clearEvents`,
    /// as each seat receives them), and the decider its own move.
    func observe(decider: Int, move: String) -> [UInt64] {
        guard observations != nil else { return [] }
        let names = game.playerNames
        let shown = names.indices.map { seat -> UInt64 in
            var fingerprint = Fingerprint()
            if seat == decider { fingerprint.add("move " + move) }
            for event in game.eventLog {
                if let seen = event.seen(by: names[seat]) { fingerprint.add(seen.description) }
            }
            return fingerprint.value
        }
        game.eventLog.removeAll(keepingCapacity: true)
        return shown
    }

    /// Each seat's view of position `index` (the game is in it), which must leave it as it is.
    func observeViews(_ index: Int) throws {
        guard let observations else { return }
        for name in game.playerNames {
            var fingerprint = Fingerprint()
            // The hook's value encoded at once (as `Game.view` does, without its restore:
            // positions here are put back by the explorer, and the check below catches a
            // view that writes).
            do {
                let value = try game.withInputBudget { try game.viewValue(for: name) }
                var encoder = ViewEncoder(lua: game.lua)
                fingerprint.add(encoder.encode(value))
            } catch { throw OddsError.ruleError("view(g, \(name)): \(error)") }
            observations.view.append(fingerprint.value)
        }
        try states.checkRandom("the view hook")
        let (after, _) = try states.encodeCurrent()
        if after != index { throw OddsError.notAnalysable("the view hook changed the game (a view must only look)") }
    }

    static func luaQuoted(_ text: String) -> String {
        var out = "\""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "\""): out += "\\\""
            case 32..<127: out.append(Character(Unicode.Scalar(byte)))
            default: out += String(format: "\\%03d", byte)
            }
        }
        return out + "\""
    }

    static func luaLiteral(_ value: LuaValue) -> String {
        switch value {
        case .string(let s): return luaQuoted(s)
        case .integer(let i): return String(i)
        case .number(let d): return d.isFinite ? String(format: "%.17g", d) : "0/0"
        case .boolean(let b): return b ? "true" : "false"
        default: return "nil"
        }
    }

    /// A bot's answer as a move label: "roll", "hold", "bet 5".
    static func label(of choice: LuaValue, lua: LuaState) -> String {
        switch choice {
        case .nil: return "roll"
        case .string(let s): return s
        case .table(let t):
            let words = lua.array(t).map { if case .string(let s) = $0 { return s } else { return $0.description } }
            if words == ["roll"], case .table(let keep) = lua.get(t, "keep") {
                return (["roll keep"] + lua.array(keep).map(\.description)).joined(separator: " ")
            }
            return words.joined(separator: " ")
        default: return choice.description
        }
    }
}

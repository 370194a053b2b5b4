import Foundation
import Lua

/// A policy module (as `dicehost solve --policy` writes it) against the rules' bot:
/// for each seat, every seat's chances when that seat plays the module's `move(g, p)` and
/// every other seat its rules' bot. Exact up to the value-iteration tolerance (both sides
/// are fixed, so no choice is left; the iteration only sums the chain).
///
///     let v = try BestPlay.versus(rulesFile: "examples/rules/pig.lua", policyFile: "pig-best.lua")
///     v.policyInSeat[0][0]    // the first seat's chance when it plays the policy
public struct PolicyVersus: Sendable {
    public var players: [String]
    public var policyFile: String
    /// policyInSeat[s][k]: seat k's chance when seat s plays the policy, the others the bot.
    public var policyInSeat: [[Double]]
    /// Every seat its rules' bot (as `dicehost odds`).
    public var botOnly: [Double]
    /// Every seat plays the policy: solve's value, played back from the module.
    public var policyEverywhere: [Double]
    /// The module is an equilibrium of a game with secrets, played from each seat's view
    /// with its probabilities (exact, not sampled).
    public var withSecrets = false
    /// Why the module was not set against the rules' bot (then `policyInSeat` and
    /// `botOnly` are empty): its bot draws random numbers, or there is none.
    public var noBot: String? = nil
    public var states: Int
    public var residual: Double
    public var tolerance: Double
    public var seconds: Double
}

/// Why a policy module cannot be played: the file, and what was expected of it.
public struct PolicyError: Error, CustomStringConvertible {
    public var file: String
    public var problem: String
    public var description: String { "policy module \(file): \(problem)" }
}

extension BestPlay {
    public static func versus(rulesFile: String, policyFile: String, options: Options = Options(),
                              progress: ((String) -> Void)? = nil) throws -> PolicyVersus {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: policyFile, isDirectory: &isFolder), !isFolder.boolValue else {
            throw PolicyError(file: policyFile, problem: "no such file (write one with `dicehost solve RULES --policy \(policyFile)`)")
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let explorer = try explore(rulesFile: rulesFile, options: options, askBot: true, toleratesDrawingBot: true,
                                   observes: { $0.hasView && !options.open }, progress: progress).0
        if let header = PolicyFileHeader.read(file: policyFile),
           let problem = header.problem(playedAs: explorer.observations != nil ? .equilibrium : .bestPlay) {
            throw PolicyError(file: policyFile, problem: problem)
        }
        // A bot that draws (Mia's bluffs) has no move per position: the module alone.
        var noBot: String?
        if case .function = explorer.game.hooks.bot {
            if explorer.botDrawsRandom {
                noBot = "the rules' bot draws random numbers, so it has no single move per position: only the policy in every seat is played"
            }
        } else {
            noBot = "the rules have no bot: only the policy in every seat is played"
        }
        if explorer.observations != nil {
            var result = try Equilibrium.playback(explorer: explorer, policyFile: policyFile, options: options,
                                                  botPlays: noBot == nil, started: started)
            result.noBot = noBot
            return result
        }
        let game = explorer.game, graph = explorer.graph
        let move = try explorer.policyMoveFunction(file: policyFile)
        let policyMove = try explorer.policyMoves(move, file: policyFile)
        let seats = game.playerNames.count
        var residual = 0.0
        func start(_ bots: Set<Int>, policy: Set<Int>) -> [Double] {
            let solution = graph.iterate(seats: seats, tolerance: options.tolerance, maxSweeps: options.maxSweeps,
                                         botSeats: bots, policySeats: policy, policyMove: policyMove, progress: nil)
            residual = max(residual, solution.residual)
            return Array(solution.values[0..<seats])
        }
        let all = Set(0..<seats)
        let rows = noBot != nil ? [] : (0..<seats).map { start(all.subtracting([$0]), policy: [$0]) }
        let bots = noBot != nil ? [] : start(all, policy: [])
        let everywhere = start([], policy: all)
        return PolicyVersus(players: game.playerNames, policyFile: policyFile, policyInSeat: rows, botOnly: bots, policyEverywhere: everywhere,
                            noBot: noBot,
                            states: graph.count, residual: residual, tolerance: options.tolerance,
                            seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
    }
}

extension MoveExplorer {
    /// Loads a policy module into the analysing game's Lua and returns its `move`.
    func policyMoveFunction(file: String) throws -> LuaValue {
        try policyFunction(file: file, named: "move", signature: "move(g, p)")
    }

    /// A function of a policy module loaded into the analysing game's Lua.
    func policyFunction(file: String, named name: String, signature: String) throws -> LuaValue {
        let lua = game.lua
        let module: LuaValue
        do {
            let chunk = try lua.load(file: file)
            module = try lua.call(.function(chunk), []).first ?? .nil
        } catch {
            throw PolicyError(file: file, problem: "does not load: \(error)")
        }
        guard case .table(let table) = module else {
            throw PolicyError(file: file, problem: "returns \(module.typeName), expected a table with a function \(signature) (as `dicehost solve --policy` writes)")
        }
        let function = lua.get(table, .string(name))
        guard case .function = function else {
            throw PolicyError(file: file, problem: "its table has no function \(signature) (as `dicehost solve --policy` writes; write it again)")
        }
        return function
    }

    /// The policy's move in every position where a player decides (-1 elsewhere), as an
    /// index into the graph's moves; a move that is not legal there is an error.
    func policyMoves(_ move: LuaValue, file: String) throws -> [Int32] {
        var chosen = [Int32](repeating: -1, count: graph.count)
        for s in 0..<graph.count where graph.terminal[s] == nil {
            try states.restore(s)
            let seat = Int(graph.decider[s]) + 1
            let answer: LuaValue
            do {
                answer = try game.lua.call(move, [try game.botSubject(seat: seat), try game.playerValue(seat)]).first ?? .nil
            } catch {
                throw PolicyError(file: file, problem: "move(g, \(game.playerName(seat: seat))) failed: \(error)")
            }
            try states.checkRandom("the policy module's move")
            let label = Self.label(of: answer, lua: game.lua)
            guard let found = (graph.moveStart[s]..<graph.moveStart[s + 1]).first(where: { !graph.botOnly.contains($0) && graph.moves[$0].label == label }) else {
                let legal = (graph.moveStart[s]..<graph.moveStart[s + 1]).filter { !graph.botOnly.contains($0) }.map { graph.moves[$0].label }
                throw PolicyError(file: file, problem: "move(g, \(game.playerName(seat: seat))) answered '\(label)', which is not a legal move "
                                  + "in a position the game reaches (legal there: \(legal.joined(separator: ", "))); was it written for other rules or params?")
            }
            chosen[s] = Int32(found)
        }
        return chosen
    }
}

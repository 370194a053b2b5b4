import Foundation
import Lua

/// One fuzz case: a fresh game (its seed), the choices its inputs were made from, the
/// inputs as played, and the check that failed, if one did.
public struct FuzzCase: Sendable {
    public var gameSeed: UInt64
    public var choices: [Int]
    /// The inputs as REPL lines (`FuzzInput.line`, which reads back as the same input)
    /// and what each printed.
    public var inputs: [String]
    public var outputs: [[String]]
    /// Where each input's choices begin in `choices`.
    var inputStarts: [Int]
    public var failure: FuzzFailure?
}

/// What a case is played with: the game's rules, players and params, the checks, and
/// how long a case goes on. Plays a case from fresh choices or from a list of them.
public struct FuzzGame: Sendable {
    public var rulesFile: String
    public var players: [String]
    public var params: [(String, String)]
    public var checks: Set<FuzzCheck>
    /// Inputs per fresh case (a replayed case has as many as its choices make).
    public var inputsPerCase: Int
    /// Bot moves the game gets to end in after a case's inputs (`ends`).
    public var moveLimit: Int
    public var limits: LuaLimits

    public init(rulesFile: String, players: [String], params: [(String, String)] = [], checks: Set<FuzzCheck> = Set(FuzzCheck.allCases),
                inputsPerCase: Int = 40, moveLimit: Int = 10_000, limits: LuaLimits = .default) {
        self.rulesFile = rulesFile
        self.players = players
        self.params = params
        self.checks = checks
        self.inputsPerCase = inputsPerCase
        self.moveLimit = moveLimit
        self.limits = limits
    }

    func makeGame(seed: UInt64) throws -> Game {
        try Game(rulesFile: rulesFile, players: players, seed: seed, params: params, limits: limits)
    }

    /// Plays one case: fresh choices (`choices` from a seed), or a list played again.
    /// Stops at the first failing check. Throws only when the game does not start.
    func play(seed gameSeed: UInt64, choices start: FuzzChoices) throws -> FuzzCase {
        var choices = start
        let game = try makeGame(seed: gameSeed)
        let session = GameSession(game: game, files: .test(transcript: rulesFile, temporaryFolder: NSTemporaryDirectory()))
        let checker = FuzzChecker(session: session, checks: checks, moveLimit: moveLimit) { [self] in try makeGame(seed: gameSeed) }
        let generator = FuzzInputGenerator(rules: game.rules)
        var result = FuzzCase(gameSeed: gameSeed, choices: [], inputs: [], outputs: [], inputStarts: [], failure: nil)
        let replaying = start.replaying != nil
        while replaying ? !choices.isExhausted : result.inputs.count < inputsPerCase {
            result.inputStarts.append(choices.recorded.count)
            let input = generator.next(session.game, &choices)
            let failure = checker.run(input)
            result.inputs.append(input.line)
            result.outputs.append(checker.steps.last?.output ?? [])
            if let failure {
                result.failure = failure
                result.choices = choices.recorded
                return result
            }
        }
        result.choices = choices.recorded
        result.failure = checker.finish()
        return result
    }
}

@testable import DiceHost
import Foundation
import Lua
import Testing

/// A failed input leaves the game exactly as the same inputs without the failed ones do,
/// whether the game rolls back to a copy taken before each input (undo history) or to an
/// older copy and replays the inputs since (a served room, Game+RollbackReplay): random
/// typed inputs, failures at random points (after several successful inputs, after a
/// timer fired, after a reload), the full state and the event log compared.
@Suite struct RollbackReplayTests {
    /// Everything a replay could get wrong: all of `g` (tables by value, in order),
    /// the identities new tables get, the host's state and the whole log.
    static func encoding(_ game: Game) -> [String] {
        RollbackPropertyTests.fingerprint(game)
            + ["serial \(game.lua.creationSerial)", "timers \(game.host.timers.pending.map { "\($0.id)@\($0.due)" })",
               "pending \(String(describing: game.host.pendingTurn))", "forgotten \(game.forgottenEvents)"]
    }

    /// A game whose inputs write, make tables, arm timers whose closures hold tables, and
    /// fail after writing (`boom`), all at any time.
    static let rules = """
    local r = rules { name = "Replay", players = {2, 3}, dice = "1d6", params = { step = 1 } }
    r.anytime = {"add", "arm", "boom", "roll"}
    function r.setup(g) g.state.n, g.state.items, g.state.fired, g.state.boxes = 0, {}, 0, {} end
    function r.roll(g, p, roll)
      g.state.n = g.state.n + roll.total * g.params.step
      p.last = {total = roll.total, id = tostring({})}
      if roll.total == 6 then g:next_turn() end
    end
    r.actions = {}
    function r.actions.add(g, p, x)
      local item = {by = p.name, x = x, id = tostring({})}
      g.state.items[#g.state.items + 1] = item
      g:say("%s adds %s", p.name, tostring(x))
    end
    function r.actions.arm(g, p, ms)
      -- What the timer's closure holds is kept in `g` too: state lives in `g`.
      local box = {armed_by = p.name}
      g.state.box = box
      g.state.boxes[#g.state.boxes + 1] = box
      timer.after(math.max(1, tonumber(ms) or 100), function(g)
        box.fired = (box.fired or 0) + 1
        g.state.fired = g.state.fired + 1
        g.state.items[#g.state.items + 1] = {timer = true, id = tostring({})}
        g:say("a timer of %s fired", box.armed_by)
      end)
    end
    function r.actions.boom(g, p, where)
      g.state.n = g.state.n + 1000
      g.state.items[#g.state.items + 1] = {bad = true}
      if g.state.box then g.state.box.fired = -1 end
      p.broken = true
      timer.after(10, function(g) g.state.n = -1 end)
      g:say("about to fail")
      if where == 1 then g:next_turn() end
      error("boom")
    end
    return r
    """

    /// One random typed input: mostly ones that succeed, with failures mixed in.
    static func randomInput(_ game: Game, _ choices: inout RollbackPropertyTests.Choices, custom: Bool) -> GameInput {
        let players = game.playerNames
        let someone = players[choices.next(players.count)]
        if custom {
            switch choices.next(10) {
            case 0, 1: return GameInput(.roll(.random), seat: game.currentPlayer)
            case 2: return GameInput(.action(name: "add", arguments: [.integer(Int64(choices.next(50)))]), seat: someone)
            case 3: return GameInput(.action(name: "arm", arguments: [.integer(Int64(choices.next(4) * 250))]), seat: someone)
            case 4, 5: return GameInput(.tick(milliseconds: choices.next(4) * 200))
            case 6: return GameInput(.action(name: "boom", arguments: [.integer(Int64(choices.next(2)))]), seat: someone)
            case 7: return GameInput(.roll(.values([choices.next(9) - 1])), seat: someone)
            case 8: return choices.next(5) == 0 ? GameInput(.reload) : GameInput(.bot)
            default: return GameInput(.action(name: "nope", arguments: []), seat: someone)
            }
        }
        let actions = game.rules.actions
        switch choices.next(8) {
        case 0, 1, 2: return GameInput(.bot)
        case 3: return GameInput(.roll(.random), seat: someone)
        case 4: return GameInput(.roll(.values([choices.next(9) - 1])), seat: someone)
        case 5:
            let name = actions.isEmpty || choices.next(4) == 0 ? "no_such_action" : actions[choices.next(actions.count)]
            let arguments: [GameInput.Argument] = (0..<choices.next(3)).map { _ in
                switch choices.next(3) {
                case 0: return .integer(Int64(choices.next(12)) - 2)
                case 1: return .string(["hold", "1", "x", ""][choices.next(4)])
                default: return .boolean(choices.next(2) == 0)
                }
            }
            return GameInput(.action(name: name, arguments: arguments), seat: someone)
        case 6: return GameInput(.tick(milliseconds: choices.next(3) * 700))
        default: return choices.next(6) == 0 ? GameInput(.reload) : GameInput(.bot)
        }
    }

    static func makeGame(_ file: String, undo: Bool) throws -> Game {
        let game = try Game(rulesFile: file, players: [], seed: 5)
        game.keepsUndoHistory = undo
        return game
    }

    /// Plays `steps` random inputs on one game and only those that were applied on a
    /// second game, comparing the two now and then and at the end.
    static func check(file: String, undo: Bool, custom: Bool, steps: Int, seed: UInt64) throws {
        var choices = RollbackPropertyTests.Choices(state: seed)
        let played = try makeGame(file, undo: undo), clean = try makeGame(file, undo: undo)
        var failures = 0, successesSinceFailure = 0, failuresAfterRuns = 0
        for step in 0..<steps {
            let input = played.isOver ? GameInput(.restart) : randomInput(played, &choices, custom: custom)
            switch played.apply(input) {
            case .applied:
                successesSinceFailure += 1
                let again = clean.apply(input)
                guard case .applied = again else {
                    Issue.record("\(file) step \(step) (undo \(undo)): \(input) applied on one game, \(again) on the other")
                    return
                }
            default:
                failures += 1
                if successesSinceFailure >= 3 { failuresAfterRuns += 1 }
                successesSinceFailure = 0
            }
            if step % 7 == 0 || step == steps - 1 {
                let (a, b) = (encoding(played), encoding(clean))
                #expect(a == b, "\(file) step \(step) (undo \(undo)) after \(input)")
                if a != b { return }
            }
        }
        #expect(failures > 0 && failuresAfterRuns > 0, "\(file): failures \(failures), after runs of successes \(failuresAfterRuns)")
    }

    @Test(arguments: RollbackPropertyTests.games, [true, false])
    func aGameWithFailedInputsIsTheGameWithoutThem(file: String, undo: Bool) throws {
        try Self.check(file: file, undo: undo, custom: false, steps: 90, seed: UInt64(file.utf8.count * 31 + (undo ? 1 : 0)))
    }

    @Test(arguments: [true, false], [1, 2, 3, 4])
    func failuresAfterWritesTimersAndReloadsLeaveNoTrace(undo: Bool, seed: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(ProcessInfo.processInfo.processIdentifier)-\(seed)-\(undo)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("replay.lua").path
        try Self.rules.write(toFile: file, atomically: true, encoding: .utf8)
        try Self.check(file: file, undo: undo, custom: true, steps: 150, seed: UInt64(seed * 1009 + (undo ? 1 : 0)))
    }

    /// A failed input after more inputs than one copy covers, after a timer fired and
    /// after a reload, in a served game (typed inputs, no undo history).
    @Test func aFailureLongAfterTheCopyReplaysEveryInputSince() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-long-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("replay.lua").path
        try Self.rules.write(toFile: file, atomically: true, encoding: .utf8)
        let played = try Self.makeGame(file, undo: false), clean = try Self.makeGame(file, undo: false)
        var inputs: [GameInput] = [GameInput(.action(name: "arm", arguments: [.integer(300)]), seat: "P1"), GameInput(.tick(milliseconds: 400))]
        for n in 0..<(Game.replayLimit + 5) { inputs.append(GameInput(.action(name: "add", arguments: [.integer(Int64(n))]), seat: "P2")) }
        inputs.append(GameInput(.reload))
        inputs.append(GameInput(.action(name: "arm", arguments: [.integer(50)]), seat: "P2"))
        inputs.append(GameInput(.tick(milliseconds: 60)))
        // A failure after the timer fired, after more inputs than a copy covers, after the reload.
        let failAfter: Set<Int> = [1, Game.replayLimit + 1, inputs.count - 3, inputs.count - 1]
        for (index, input) in inputs.enumerated() {
            #expect(played.apply(input).isApplied)
            #expect(clean.apply(input).isApplied)
            guard failAfter.contains(index) else { continue }
            let boom = played.apply(GameInput(.action(name: "boom", arguments: [.integer(1)]), seat: "P1"))
            guard case .ruleFailure = boom else { Issue.record("boom was not a rule failure: \(boom)"); return }
            #expect(Self.encoding(played) == Self.encoding(clean), "after \(input)")
        }
        // Two failures in a row, and clock moves that run no rule code, between them.
        _ = played.apply(GameInput(.tick(milliseconds: 5)))
        _ = clean.apply(GameInput(.tick(milliseconds: 5)))
        _ = played.apply(GameInput(.action(name: "boom", arguments: []), seat: "P2"))
        _ = played.apply(GameInput(.action(name: "boom", arguments: []), seat: "P1"))
        #expect(Self.encoding(played) == Self.encoding(clean))
        #expect(played.memoryUse.holdsRollbackCopy)
    }

    /// While inputs keep failing after rule code ran, each input takes its copy when it
    /// ends (a failure then costs a compare, not a replay); once they stop, none does.
    @Test func aRoomWhoseInputsKeepFailingCopiesAfterEachInputUntilTheyStop() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-rate-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("replay.lua").path
        try Self.rules.write(toFile: file, atomically: true, encoding: .utf8)
        let game = try Self.makeGame(file, undo: false)
        let add = GameInput(.action(name: "add", arguments: [.integer(1)]), seat: "P1")
        for _ in 0..<4 {
            #expect(game.apply(add).isApplied)
            #expect(!game.apply(GameInput(.action(name: "boom", arguments: []), seat: "P2")).isApplied)
        }
        #expect(game.apply(add).isApplied)
        #expect(game.rollbackBase?.steps.isEmpty == true, "a step was kept to replay")
        for _ in 0..<40 { #expect(game.apply(add).isApplied) }
        #expect(game.rollbackBase?.steps.isEmpty == false, "still copying after each input")
    }

    /// A served input that succeeds copies nothing: the copy it could go back to is the
    /// one taken before, and only every `replayLimit` inputs is a new one taken.
    @Test func aServedInputThatSucceedsTakesNoCopy() throws {
        let game = try Game(rulesFile: "rules/snap.lua", players: ["Ann", "Bob"], seed: 3)
        game.keepsUndoHistory = false
        #expect(game.apply(GameInput(.bot)).isApplied)
        let copy = game.lastSnapshot
        #expect(copy != nil)
        for _ in 0..<3 { #expect(game.apply(GameInput(.bot)).isApplied) }
        #expect(game.lastSnapshot.map { $0.first } == copy.map { $0.first }, "a copy was taken")
        #expect(game.rollbackBase?.steps.count == 4)
        // Refused by the host's checks before any rule code: no replay, no new copy.
        let current = game.currentPlayer ?? ""
        let other = game.playerNames.first { $0 != current } ?? ""
        guard case .refused(.notYourTurn, _) = game.apply(GameInput(.action(name: "flip", arguments: []), seat: other)) else {
            Issue.record("a flip out of turn was not refused as out of turn"); return
        }
        #expect(game.rollbackBase?.steps.count == 4)
    }
}

import DiceHost
import Foundation
import Lua
import Testing

/// What a failed input must leave as it was: the log, the state, whose turn it is, the
/// outcome, the clock, the metrics, the LEDs and the host records' bytes.
struct GameFingerprint: Equatable {
    var events: [String], state: [String], current: String?, outcome: Game.Outcome?, now: Int, metrics: [String], leds: [LEDColor], hostBytes: Int

    init(_ game: Game) {
        events = game.events.map(\.timestamped)
        current = game.currentPlayer
        state = GameSession(game: game).describeState()
        outcome = game.outcome
        now = game.now
        metrics = game.metrics.map { "\($0.0)=\($0.1)" }
        leds = game.led.colors(at: game.now)
        hostBytes = game.hostRecordBytes
    }
}

/// Runs an input that must fail with `expected` (exactly, or as a prefix when
/// `prefix` is set), quickly and without changing the game.
func expectRefused(_ game: Game, _ expected: String, prefix: Bool = false, within seconds: Double = 10,
                   sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    expectRefused(game, within: seconds, sourceLocation: sourceLocation, body) { error in
        prefix ? error.hasPrefix(expected) : error == expected
    }
}

/// As above, for an error whose text contains `expected` (it may start with a file and line).
func expectRefused(_ game: Game, containing expected: String, within seconds: Double = 20,
                   sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    expectRefused(game, within: seconds, sourceLocation: sourceLocation, body) { $0.contains(expected) }
}

private func expectRefused(_ game: Game, within seconds: Double, sourceLocation: SourceLocation,
                           _ body: () throws -> Void, matching: (String) -> Bool) {
    let before = GameFingerprint(game)
    let clock = ContinuousClock()
    let start = clock.now
    do {
        try body()
        Issue.record("the input did not fail", sourceLocation: sourceLocation)
    } catch {
        #expect(matching("\(error)"), "\(error)", sourceLocation: sourceLocation)
    }
    #expect(clock.now - start < .seconds(seconds * 3), sourceLocation: sourceLocation)
    #expect(GameFingerprint(game) == before, sourceLocation: sourceLocation)
}

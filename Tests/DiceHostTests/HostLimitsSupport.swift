import DiceHost
import Foundation
import Lua
import Testing

/// What a failed input must leave as it was: the log, the state, the outcome, the clock,
/// the metrics, the LEDs and the host records' bytes.
struct GameFingerprint: Equatable {
    var events: [String], state: [String], outcome: Game.Outcome?, now: Int, metrics: [String], leds: [LEDColor], hostBytes: Int

    init(_ game: Game) {
        events = game.events.map(\.timestamped)
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
    let before = GameFingerprint(game)
    let clock = ContinuousClock()
    let start = clock.now
    do {
        try body()
        Issue.record("expected error: \(expected)", sourceLocation: sourceLocation)
    } catch {
        if prefix {
            #expect("\(error)".hasPrefix(expected), "\(error)", sourceLocation: sourceLocation)
        } else {
            #expect("\(error)" == expected, sourceLocation: sourceLocation)
        }
    }
    #expect(clock.now - start < .seconds(seconds), sourceLocation: sourceLocation)
    #expect(GameFingerprint(game) == before, sourceLocation: sourceLocation)
}

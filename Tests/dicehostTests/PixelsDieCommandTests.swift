import Foundation
import Testing

/// `play --die pixels-sim[:FAULTS]`: Race to Space on a simulated Pixels die, every roll
/// and LED command crossing as the protocol's bytes.
@Suite struct PixelsDieCommandTests {
    @Test func raceToSpacePlaysOnTheSimulatedPixelThroughItsBytes() throws {
        let result = try runDicehost(["play", "rules/race.lua", "--seed", "5", "--die", "pixels-sim:tilt@2,short@3,low-battery@4,disconnect@5"],
                                     input: "roll 3\nroll\nroll\nroll 6\nroll 2\nroll\nconnect\nroll 3\n")
        #expect(result.status == 0, "\(result)")
        let out = result.stdout
        #expect(out.contains("emit device connected\ndie roll updates on\ndie battery 87%\nemit device battery 87\ndie signal -58 dBm\n"))
        // The rolled face blinks green: Blink id 29, 5 flashes, 750 ms, 0x0000FF00, face 3 (bit 2), no fade, once.
        #expect(out.contains("die rolled\ndie shows ⚂\nroll Ann ⚂\nled blink 3 green on=100ms cycle=50ms count=5 priority=0\ndie ← Blink 1d 05 ee 02 00 ff 00 00 04 00 00 00 00 00\n"))
        #expect(out.contains("die crooked: no face up (a red flash)\ndie shows tilt\nroll Bob tilt\nled blink all red on=100ms cycle=200ms count=4 priority=1\ndie ← Blink 1d 04 20 03 00 00 ff 00 3f 00 00 00 00 00\n"))
        #expect(out.contains("die rolled\ndie shows too_short\nroll Bob too_short\n"))
        #expect(out.contains("die battery 9%\nemit device battery 9\nsay the die's battery is low (9%)\n"))
        #expect(out.contains("die disconnected: out of range after roll 5\nemit device disconnected\nsay the die disconnected: Bob's turn is paused\n"))
        #expect(out.contains("error: the die is not connected ('connect' reconnects it)\n"))
        #expect(out.contains("say the die is back: Bob to roll\n"))
        #expect(out.contains("roll Bob ⚂\n"))
    }

    @Test func aGameOnTheSimulatedPixelReplaysFromItsLogWithoutTheDie() throws {
        let folder = NSTemporaryDirectory() + "dicehost-pixels-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let play = try runDicehost(["play", "rules/race.lua", "--seed", "5", "--die", "pixels-sim:short@2,disconnect@3", "--log", folder + "/g.jsonl"],
                                   input: "roll\nroll\nroll\ntick 5s\nconnect\nroll\n")
        #expect(play.status == 0, "\(play)")
        let log = try String(contentsOfFile: folder + "/g.jsonl", encoding: .utf8)
        #expect(log.hasPrefix("{\"dicehost_log\":2,\"die\":\"pixels-sim:short@2,disconnect@3\""))
        #expect(log.contains("\"input\":{\"event\":\"roll\",\"flag\":\"too_short\",\"type\":\"device\"}"))
        #expect(log.contains("\"input\":{\"event\":\"disconnected\",\"type\":\"device\"}"))
        let replay = try runDicehost(["replay", folder + "/g.jsonl"])
        #expect(replay.status == 0, "\(replay)")
    }

    @Test func aPixelThatIsNotTheGamesDieIsRefused() throws {
        let result = try runDicehost(["play", "rules/race.lua", "--seed", "5", "--die", "pixels-sim:auth-fails"], input: "roll\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("is a d20; this game needs a 6-sided die\nemit device authorisation_failed\n"))
        #expect(result.stdout.contains("error: the die is not connected"))
    }

    @Test func aPixelIsOneDie() throws {
        let result = try runDicehost(["play", "rules/craps.lua", "--seed", "5", "--die", "pixels-sim"], input: "")
        #expect(result.status == 2)
        #expect(result.stderr == "dicehost: --die: a Pixels die is one die; Craps throws 2 at once\n")
    }
}

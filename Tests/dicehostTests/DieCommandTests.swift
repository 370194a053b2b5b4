import Foundation
import Testing

@Suite struct DieCommandTests {
    @Test func playOnASimulatedDieShowsTheRollLifecycleAndItsFaults() throws {
        let result = try runDicehost(["play", "rules/race.lua", "--seed", "3", "--die", "sim:tilt@2,disconnect@3"],
                                     input: "roll 4\nroll\nroll 5\nroll\nconnect\nroll 2\n")
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.starts(with: ["Race to Space: Ann, Bob", "turn Ann", "say Ann to roll (score 0 of 25)", "die Simulated die connected",
                                    "emit device connected", "die roll updates on"]))
        #expect(result.stdout.contains("die handling\ndie rolling "))
        #expect(result.stdout.contains("die rolled\ndie shows ⚃\nroll Ann ⚃\n"))
        #expect(result.stdout.contains("die crooked: no face up (a red flash)\ndie shows tilt\nroll Bob tilt\nled blink all red"))
        #expect(result.stdout.contains("die disconnected: out of range after roll 3\nemit device disconnected\nsay the die disconnected: Ann's turn is paused\n"))
        #expect(result.stdout.contains("error: the die is not connected ('connect' reconnects it)\n"))
        #expect(result.stdout.contains("say the die is back: Ann to roll\ndie roll updates on\n"))
        #expect(result.stdout.hasSuffix("die shows ⚁\nroll Ann ⚁\nled blink 2 green on=100ms cycle=50ms count=5 priority=0\nsay scores: Ann 6, Bob 5\nturn Bob\nsay Bob to roll (score 5 of 25)\ndie on_face\n"))
    }

    @Test func aDieGameLogReplaysWithoutTheDie() throws {
        let folder = NSTemporaryDirectory() + "dicehost-die-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let play = try runDicehost(["play", "rules/race.lua", "--seed", "3", "--die", "sim:disconnect@2", "--log", folder + "/g.jsonl"],
                                   input: "roll\nroll\ntick 5s\nconnect\nroll\n")
        #expect(play.status == 0, "\(play)")
        let log = try String(contentsOfFile: folder + "/g.jsonl", encoding: .utf8)
        #expect(log.hasPrefix("{\"dicehost_log\":2,\"die\":\"sim:disconnect@2\""))
        #expect(log.contains("\"input\":{\"event\":\"disconnected\",\"type\":\"device\"}"))
        let replay = try runDicehost(["replay", folder + "/g.jsonl"])
        #expect(replay.status == 0, "\(replay)")
    }

    @Test func badDieOptionsAreUsageErrors() throws {
        let bad = try runDicehost(["play", "rules/race.lua", "--die", "sim:melt@2"], input: "")
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("dicehost: --die: unknown fault 'melt@2' ("))
        let real = try runDicehost(["play", "rules/race.lua", "--die", "bluetooth"], input: "")
        #expect(real.status == 2)
        #expect(real.stderr == "dicehost: --die: expected 'sim', 'sim:FAULTS', 'pixels-sim' or 'pixels-sim:FAULTS' (e.g. sim:tilt@2,disconnect@3), got 'bluetooth'\n")
        let both = try runDicehost(["play", "rules/race.lua", "--die", "sim", "--auto"], input: "")
        #expect(both.status == 2)
    }

    @Test func deviceTiltAndSensorCommandsRefuseBadInputClearly() throws {
        let result = try runDicehost(["play", "rules/labyrinth.lua", "--seed", "1"],
                                     input: "tilt 3 0\ntilt nan 0\ntilt 0.1\nsensor smell 1\nsensor accelerometer 1 2\nsensor accelerometer 0 0 1 @-5\nsensor accelerometer none.csv\ndevice roll 9000000\ndevice battery 101\ndevice explode\nstate\n")
        #expect(result.status == 0)
        #expect(result.stdout.contains("""
            error: usage: tilt X Y, each from -2 to 2 (g), e.g. 'tilt 0.2 -0.1'
            error: usage: tilt X Y, each from -2 to 2 (g), e.g. 'tilt 0.2 -0.1'
            error: usage: tilt X Y, each from -2 to 2 (g), e.g. 'tilt 0.2 -0.1'
            error: usage: sensor KIND V... [@MS] or sensor KIND FILE, KIND one of accelerometer, magnetometer, orientation, touch, proximity, temperature
            error: a accelerometer sample has 3 values, got 2
            error: a sample's time @MS must be whole ms from now (0) on, got '@-5'
            """))
        #expect(result.stdout.contains("error: device roll takes face values from 1 to 1000000, 'tilt' or 'short', got '9000000'\n"))
        #expect(result.stdout.contains("error: usage: device battery N, N a percentage from 0 to 100\n"))
        #expect(result.stdout.contains("error: unknown device event 'explode' (roll, connected, disconnected, connection_failed, authorisation_failed, battery)\n"))
        #expect(result.stdout.contains("tilt_x=0, tilt_y=0"))  // nothing reached the game
    }
}

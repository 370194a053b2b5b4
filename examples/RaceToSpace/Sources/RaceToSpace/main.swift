// Race to Space, as an app would play it: the rules (rules/race.lua) decide, a die
// reports, the app animates. The die is DiceHost's SimulatedDie with scripted faults -
// its second roll comes to rest tilted, and it drops out of range after its fourth -
// so the run shows a red flash, a paused turn and a reconnection. The output is what
// the app would draw, frame by frame, stamped with the game clock.
//
// With `--pixels` the die is a Pixels die (GameWithPixels) on a simulated Pixel: every
// report comes from the protocol's bytes (RollState, BatteryLevel, …) and every LED
// command leaves as a Blink message; the run ends with the bytes written to it.
//
// Concurrency: the game lives inside the `GameHost` actor; this file only sends it
// commands and reads its `events` (an AsyncStream of Sendable values) in one task.
import DiceHost
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let pixels = arguments.contains("--pixels")
let rulesPath = arguments.first { $0 != "--pixels" }
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../../rules/race.lua").standardized.path

/// The bytes written to the Pixel, collected inside the host and read after the game.
final class WrittenBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func append(_ line: String) { lock.lock(); messages.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return messages }
}
let written = WrittenBytes()

let faults = (try? SimulatedDie.Faults.parse("tilt@2,disconnect@4")) ?? SimulatedDie.Faults()
let host = try GameHost(rulesFile: rulesPath, players: ["Ann", "Bob"], seed: 7, params: [("target", "12")]) {
    guard pixels else { return SimulatedDie(seed: 11, faults: faults) }
    let die = SimulatedPixel(seed: 11, faults: faults).makeDie(sides: 6, minimumRollTime: 300)
    die.onWrite = { message, bytes in
        written.append(message.id.name + " " + bytes.map { String(format: "%02x", $0) }.joined(separator: " "))
    }
    return die
}

/// Draws every event; LED commands become frames of the six faces every 100 ms.
let screen = Task {
    var timeline = LEDTimeline()
    for await event in host.events {
        let stamp = String(format: "[%6d ms]", event.time)
        switch event.kind {
        case .game(let gameEvent):
            print("\(stamp) \(gameEvent.description)")
            if case .led(let command) = gameEvent.kind {
                timeline.apply(command, at: event.time)
                let length = min(command.duration ?? 300, 1000)
                for t in stride(from: 0, through: length, by: 100) {
                    let faces = timeline.colors(at: event.time + t).map { $0 == .off ? "·" : "\($0)" }
                    print(String(format: "[%6d ms]   frame ", event.time + t) + faces.joined(separator: " "))
                }
            }
        case .die(.rollState(let state)): print("\(stamp) die \(state.rawValue)")
        case .die(.roll(let roll)): print("\(stamp) die shows \(roll)")
        case .die(.battery(let level, _)): print("\(stamp) die battery \(level)%")
        case .die(.signal(let rssi)): print("\(stamp) die signal \(rssi) dBm")
        case .die(.connected): print("\(stamp) die connected")
        case .die(.disconnected(let reason)), .die(.connectionFailed(let reason)), .die(.authorisationFailed(let reason)):
            print("\(stamp) die lost: \(reason)")
        case .die(.sensor): break
        case .sent(.rollUpdates(let on)): print("\(stamp) → die: roll updates \(on ? "on" : "off")")
        case .sent(.led): break  // drawn from the game event above
        case .sent(let command): print("\(stamp) → die: \(command)")
        case .ignored(let reason): print("\(stamp) ignored: \(reason)")
        }
    }
}

// The players: each throws when the die is listening; a dropped die is reconnected
// after three seconds (the game pauses meanwhile).
await host.connectDie()
var throwsMade = 0
while await host.outcome == nil, throwsMade < 40 {
    if await !host.isDieConnected {
        await host.run("tick 3s")
        await host.connectDie()
        continue
    }
    await host.throwSimulatedDie()
    throwsMade += 1
    await host.run("tick 600ms")  // the LED animation plays out before the next throw
}
let outcome = await host.outcome
await host.finish()
await screen.value  // every event drawn before the summary
if case .win(let winner)? = outcome { print("\(winner) wins after \(throwsMade) throws") } else { print("no winner after \(throwsMade) throws") }
if pixels {
    print("written to the Pixel:")
    for line in written.all { print("  " + line) }
}

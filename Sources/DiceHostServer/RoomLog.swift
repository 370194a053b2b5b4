import DiceHost
import Foundation

/// A room's log in the replay format (`GameLog`, JSON Lines): a header when the game
/// starts (rules and their hash, params, seed, players, the start events), then one line
/// per input with the events it caused: a command as the REPL would type it (`as Ann roll`,
/// `as Bob snap`, `tick 1500ms`, `restart`, `reload`), or a bot move (`"input":{"type":"bot"}`)
/// the room made for an absent or idle seat. `dicehost replay FILE` plays it again
/// and checks every event; the events are also what every client of the room was sent,
/// in order. Refused inputs change nothing and are not written.
final class RoomLog {
    let file: AppendingLogFile
    private var count = 0
    private(set) var warning: String?

    init(directory: String, room: String) throws {
        let stamp = Int(Date().timeIntervalSince1970)
        let path = (directory as NSString).appendingPathComponent("room-\(room)-\(stamp).jsonl")
        file = try AppendingLogFile(path: path, protectedPaths: [])
    }

    var path: String { file.path }

    func start(_ game: Game) {
        count = 0
        write(GameLog.line(GameLog.Header(game: game)))
    }

    func input<S: Sequence>(_ line: String, time: Int, events: S) where S.Element == GameEvent {
        count += 1
        write(GameLog.line(GameLog.Entry(n: count, input: line, t: time, events: events.map(GameLog.json), error: nil)))
    }

    /// A typed input (an action with its arguments' types), written as itself.
    func input<S: Sequence>(_ input: GameInput, time: Int, events: S) where S.Element == GameEvent {
        count += 1
        write(GameLog.line(GameLog.Entry(n: count, input: input, t: time, events: events.map(GameLog.json), error: nil)))
    }

    /// A move the rules' bot made for a seat (the clock ran out, or its player left): a
    /// bot move of the replay format, which `dicehost replay` plays by asking the bot again.
    func botMove<S: Sequence>(time: Int, events: S) where S.Element == GameEvent {
        count += 1
        write(GameLog.line(GameLog.Entry(n: count, input: nil, bot: true, t: time, events: events.map(GameLog.json), error: nil)))
    }

    private func write(_ line: String) {
        if let failed = file.append(line + "\n"), warning == nil { warning = failed }
    }
}

import DiceHost
import Foundation

/// A room's log in the replay format (`GameLog`, JSON Lines): a header when the game
/// starts (rules and their hash, params, seed, players, the start events), then one line
/// per input with the events it caused, the input typed (`GameInput.json`):
/// `{"seat":"Ann","type":"roll"}`, `{"args":[],"name":"snap","seat":"Bob","type":"action"}`,
/// `{"ms":1500,"type":"tick"}`, `{"type":"restart"}`, `{"type":"reload"}`, `{"type":"skip"}`,
/// or a bot move (`{"type":"bot"}`) the room made for an absent or idle seat. `dicehost replay FILE` plays it again
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

    /// An input with the events it caused, the input typed as itself (`GameLog.Entry`):
    /// a bot move the room made for a seat is `{"type":"bot"}`, which `dicehost replay`
    /// plays by asking the bot again.
    func input(_ input: GameInput, time: Int, events: [GameEvent]) {
        count += 1
        write(GameLog.line(GameLog.Entry(n: count, input: input, t: time, events: events.map(GameLog.json), error: nil)))
    }

    private func write(_ line: String) {
        if let failed = file.append(line + "\n"), warning == nil { warning = failed }
    }
}

import DiceHost
import Foundation

/// A room's log, one JSON object a line: the game (rules, players, seed, params), then
/// each input in the REPL's words ("as Ann roll", "tick 1500ms", "as Bob snap") with
/// the events it caused. The inputs with the seed replay the game exactly; the events
/// are what every client of the room was sent, in order.
final class RoomLog {
    let file: AppendingLogFile
    private(set) var warning: String?

    init(directory: String, room: String) throws {
        let stamp = Int(Date().timeIntervalSince1970)
        let path = (directory as NSString).appendingPathComponent("room-\(room)-\(stamp).jsonl")
        file = try AppendingLogFile(path: path, protectedPaths: [])
    }

    var path: String { file.path }

    func start<S: Sequence>(rules: String, players: [String], seed: UInt64, params: [(String, String)], events: S) where S.Element == GameEvent {
        let fields = params.map { "\($0.0.jsonQuoted):\($0.1.jsonQuoted)" }.joined(separator: ",")
        write("{\"type\":\"game\",\"protocol\":\(ServerProtocol.version),\"rules\":\(rules.jsonQuoted),"
              + "\"players\":[\(players.map(\.jsonQuoted).joined(separator: ","))],\"seed\":\(seed),\"params\":{\(fields)},"
              + "\"events\":[\(events.map(\.json).joined(separator: ","))]}")
    }

    func input<S: Sequence>(_ line: String, time: Int, events: S) where S.Element == GameEvent {
        write("{\"type\":\"input\",\"t\":\(time),\"input\":\(line.jsonQuoted),\"events\":[\(events.map(\.json).joined(separator: ","))]}")
    }

    private func write(_ line: String) {
        if let failed = file.append(line + "\n") { warning = failed }
    }
}

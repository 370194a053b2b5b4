import DiceHost
import Foundation

/// `sim --csv FILE`: one row per game for spreadsheets and notebooks, in game order:
///
///     rules,game,seed,outcome,winner,rolls,turns,lost,won
///     rules/craps.lua,0,1234567,win,Ann,12,10,5,15
///
/// Rows arrive from the worker threads as games end and are written when the study
/// ends (also after Ctrl-C), by a temporary file and a rename like every file dicehost
/// writes (`SafeFileWriter`): never onto a link, a device or the rules.
final class SimCSV: @unchecked Sendable {
    static let header = "rules,game,seed,outcome,winner,rolls,turns"
    /// The most rows kept (they are held in memory until the study ends).
    static let maxRows = 1_000_000

    let path: String
    let writer: SafeFileWriter
    private let lock = NSLock()
    private var rows: [(rules: String, game: SimulatedGame)] = []

    init(path: String, force: Bool, games: Int, rules: [String]) throws {
        guard games <= Self.maxRows else {
            printError("dicehost: --csv writes at most \(Self.maxRows) rows (one per game); this study has \(games) (use --shard to split it)")
            throw ExitStatus.usage
        }
        self.path = path
        // A CSV this command wrote before is replaced without --force, like a transcript by save.
        writer = SafeFileWriter(protectedPaths: rules, force: force || Self.isOurs(path), forceHint: "--force")
        do { try writer.check(path) } catch {
            printError("dicehost: --csv: \(error)")
            throw ExitStatus.usage
        }
    }

    func add(_ game: SimulatedGame, rules: String) {
        lock.lock(); rows.append((rules, game)); lock.unlock()
    }

    func write() {
        lock.lock(); defer { lock.unlock() }
        do { try writer.write(text(), to: path) } catch { printError("dicehost: --csv: \(error)") }
    }

    /// The file's text: a header with every metric any game recorded, then the rows.
    func text() -> String {
        let metrics = Array(Set(rows.flatMap { $0.game.metrics.keys })).sorted()
        var lines = [([Self.header] + metrics.map(Self.field)).joined(separator: ",")]
        for (rules, game) in rows.sorted(by: { ($0.rules, $0.game.index) < ($1.rules, $1.game.index) }) {
            let (outcome, player): (String, String) = switch game.ending {
            case .win(let p): ("win", p)
            case .loss(let p): ("loss", p)
            case .draw: ("draw", "")
            case .unfinished: ("unfinished", "")
            case .error: ("error", "")
            }
            var fields = [Self.field(rules), "\(game.index)", "\(game.seed)", outcome, Self.field(player), "\(game.rolls)", "\(game.turns)"]
            fields += metrics.map { game.metrics[$0].map { LuaNumberText.format($0) } ?? "" }
            lines.append(fields.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A field quoted when it holds a comma, quote or line break (RFC 4180).
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func isOurs(_ path: String) -> Bool {
        var info = stat()
        // Only a regular file is opened: a FIFO would block, a link is refused when writing.
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: header.utf8.count)) ?? Data()
        return String(decoding: start, as: UTF8.self) == header
    }
}

/// Numbers as Lua prints them: 5, 2.5 (no trailing ".0" for whole numbers).
enum LuaNumberText {
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

import ArgumentParser
import Foundation

/// The options of `dicehost serve`. dicehost parses them (so `dicehost help serve` shows
/// them and a bad one is a usage error before anything starts) and hands the same
/// arguments to dicehost-server, which parses them again and serves.
public struct ServeOptions: ParsableArguments {
    /// What `dicehost help serve` says about the command.
    public static let abstract = "Serve the rule scripts of a folder: rooms over WebSocket and a browser table."
    public static let discussion = """
        Open http://HOST:PORT/ in a browser to create a room and play; the protocol is in \
        docs/protocol.md. The server holds the games: it rolls the dice, enforces turns and runs \
        the timers. Stop it with Ctrl-C. The server is the program dicehost-server beside dicehost \
        (`make server` builds it; `make install` installs it when it was built).
        """

    @Argument(help: "The folder of rule scripts to offer, e.g. rules.")
    public var rulesDirectory: String

    @Option(help: "The port to listen on (0: any free port).")
    public var port: Int = 8080

    @Option(help: "The address to listen on; 0.0.0.0 lets other machines join.")
    public var host: String = "127.0.0.1"

    @Flag(help: "Reload a rule file in every room that uses it when it is saved.")
    public var watch = false

    @Option(name: .customLong("logs"), help: "A folder to write each room's log to (JSON Lines).")
    public var logDirectory: String?

    @Option(name: .customLong("store"), help: ArgumentHelp(
        "The SQLite file that keeps the rooms across restarts, a PostgreSQL address postgres://USER:PASSWORD@HOST:PORT/DATABASE that several processes share, or none (default: rooms.sqlite in the --logs folder, else dicehost-rooms.sqlite here).",
        discussion: "Every input is stored before it is acknowledged. With a file (one process a file) the server reopens the unfinished rooms on start; with PostgreSQL a process owns a room through a lease and takes over a room whose owner's lease lapsed when a player asks for it (docs/scaling.md)."))
    public var store: String?

    @Option(name: .customLong("lease"), help: "With a PostgreSQL store: seconds a room's lease runs unrenewed, i.e. how long the rooms of a process that died wait before another process takes them over (0.5 to 3600).")
    public var leaseSeconds: Double = 5

    @Option(name: .customLong("allow-origin"), help: ArgumentHelp(
        "A web origin (https://table.example) whose pages may open this server's WebSocket; repeatable; * allows any.",
        discussion: "A browser's WebSocket from a page of another origin than this server is refused (403) unless allowed here."))
    public var allowOrigin: [String] = []

    public init() {}

    /// The store file (nil: `--store none`, rooms in memory only).
    public var storePath: String? {
        switch store {
        case "none"?: return nil
        case let path?: return path
        case nil: return logDirectory.map { ($0 as NSString).appendingPathComponent("rooms.sqlite") } ?? "dicehost-rooms.sqlite"
        }
    }

    public func validate() throws {
        for origin in allowOrigin where origin != "*" {
            guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil,
                  url.path.isEmpty, url.query == nil else {
                throw ValidationError("--allow-origin takes an origin such as https://table.example (scheme, host and port only) or *, got \(origin)")
            }
        }
        if let store, store.isEmpty { throw ValidationError("--store takes a file name, a postgres:// address, or none") }
        guard leaseSeconds.isFinite, (0.5...3600).contains(leaseSeconds) else {
            throw ValidationError("--lease must be from 0.5 to 3600 seconds, got \(leaseSeconds)")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535, got \(port)") }
    }
}

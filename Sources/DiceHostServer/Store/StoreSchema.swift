import DiceHost
import Foundation

/// The store's tables, in one place. A file with tables but no `dicehost_store` is not a
/// room store and is refused; one of another format too.
///
/// Format 2: an input's row holds the seat that sent it and that seat's new sequence
/// number (`seat`, `seq`; NULL for a timer's input), written with the input instead of an
/// update of the seat's row: a stored input writes two pages to the WAL (the inputs
/// table's and its `(room, n)` index's), not three (the seats table's page too). A seat's
/// last sequence number is the larger of its row's `last_seq` and its inputs' `seq`.
///
/// Format 3: what the room knows beside the game survives a restart: the turn clock's
/// seconds its creator set (`rooms.turn_seconds`, NULL: the rules' or the server's
/// default), a game the players abandoned (`rooms.abandoned`), a seat whose player left
/// and a player ready for another game (`seats.has_left`, `seats.ready`); and each input
/// row says how its input is written (`inputs.kind`: `line`, a REPL line, as every row of
/// formats 1 and 2 was; `json`, a typed input, as every row is written now), so rows of
/// both kinds replay side by side.
///
/// An older file is brought up when opened, one format at a time, in one transaction: a
/// step that fails leaves the file as it was. A dicehost that reads an older format
/// refuses a newer file by its format.
enum StoreSchema {
    static let markerTable = "dicehost_store"
    static let format = "3"
    /// The statements that bring a file of each older format to the next one, in order.
    static let upgrades: [(from: String, statements: [String])] = [
        ("1", ["ALTER TABLE inputs ADD COLUMN seat INTEGER",
               "ALTER TABLE inputs ADD COLUMN seq INTEGER"]),
        ("2", ["ALTER TABLE rooms ADD COLUMN turn_seconds INTEGER",
               "ALTER TABLE rooms ADD COLUMN abandoned INTEGER NOT NULL DEFAULT 0",
               "ALTER TABLE seats ADD COLUMN has_left INTEGER NOT NULL DEFAULT 0",
               "ALTER TABLE seats ADD COLUMN ready INTEGER NOT NULL DEFAULT 0",
               "ALTER TABLE inputs ADD COLUMN kind TEXT NOT NULL DEFAULT 'line'"]),
    ]
    static var formatsBroughtUp: [String] { upgrades.map(\.from) }

    /// The statements that bring a file of `format` to the current one (nil: not a format
    /// this dicehost brings up).
    static func upgrade(from format: String) -> [String]? {
        guard let first = upgrades.firstIndex(where: { $0.from == format }) else { return nil }
        return upgrades[first...].flatMap(\.statements)
    }

    static let create = [
        "CREATE TABLE IF NOT EXISTS dicehost_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS rooms (id TEXT PRIMARY KEY, rules TEXT NOT NULL, rules_sha256 TEXT NOT NULL, params TEXT NOT NULL,
            seed TEXT NOT NULL, seats INTEGER NOT NULL, device_rolls INTEGER NOT NULL, created INTEGER NOT NULL, header TEXT,
            finished INTEGER, closed_reason TEXT, turn_seconds INTEGER, abandoned INTEGER NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE IF NOT EXISTS seats (room TEXT NOT NULL REFERENCES rooms(id), seat INTEGER NOT NULL, name TEXT NOT NULL,
            token_sha256 TEXT NOT NULL, last_seq INTEGER NOT NULL DEFAULT 0, has_left INTEGER NOT NULL DEFAULT 0,
            ready INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, seat))
        """,
        """
        CREATE TABLE IF NOT EXISTS inputs (room TEXT NOT NULL REFERENCES rooms(id), n INTEGER NOT NULL, input TEXT NOT NULL,
            t INTEGER NOT NULL, events TEXT NOT NULL, seat INTEGER, seq INTEGER, kind TEXT NOT NULL DEFAULT 'line',
            PRIMARY KEY (room, n))
        """,
    ]

    /// A stored turn clock in range (0: no clock; else what `create` takes), nil if not.
    static func turnSeconds(_ stored: Int) -> Int? {
        stored == 0 || (1...RuleSet.turnSecondsRange.upperBound).contains(stored) ? stored : nil
    }

    static func paramsText(_ params: [[String]]) -> String {
        (try? String(decoding: JSONEncoder().encode(params), as: UTF8.self)) ?? "[]"
    }

    static func params(from text: String?) -> [[String]]? {
        guard let text, let params = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8)),
              params.allSatisfy({ !$0.isEmpty }) else { return nil }
        return params
    }
}

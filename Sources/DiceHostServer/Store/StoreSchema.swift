import Foundation

/// The store's tables, in one place. A file with tables but no `dicehost_store` is not a
/// room store and is refused; one of another format too.
///
/// Format 2 (issue 32): an input's row holds the seat that sent it and that seat's new
/// sequence number (`seat`, `seq`; NULL for a timer's input), written with the input
/// instead of an update of the seat's row: a stored input writes two pages to the WAL (the
/// inputs table's and its `(room, n)` index's), not three (the seats table's page too). A seat's last sequence number is the larger of its
/// row's `last_seq` and its inputs' `seq`. A format 1 file is brought to format 2 when
/// opened (two columns added); a dicehost that reads format 1 refuses a format 2 file.
enum StoreSchema {
    static let markerTable = "dicehost_store"
    static let format = "2"
    static let formatsBroughtUp = ["1"]
    static let upgrade = [
        "ALTER TABLE inputs ADD COLUMN seat INTEGER",
        "ALTER TABLE inputs ADD COLUMN seq INTEGER",
    ]

    static let create = [
        "CREATE TABLE IF NOT EXISTS dicehost_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS rooms (id TEXT PRIMARY KEY, rules TEXT NOT NULL, rules_sha256 TEXT NOT NULL, params TEXT NOT NULL,
            seed TEXT NOT NULL, seats INTEGER NOT NULL, device_rolls INTEGER NOT NULL, created INTEGER NOT NULL, header TEXT,
            finished INTEGER, closed_reason TEXT)
        """,
        """
        CREATE TABLE IF NOT EXISTS seats (room TEXT NOT NULL REFERENCES rooms(id), seat INTEGER NOT NULL, name TEXT NOT NULL,
            token_sha256 TEXT NOT NULL, last_seq INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, seat))
        """,
        """
        CREATE TABLE IF NOT EXISTS inputs (room TEXT NOT NULL REFERENCES rooms(id), n INTEGER NOT NULL, input TEXT NOT NULL,
            t INTEGER NOT NULL, events TEXT NOT NULL, seat INTEGER, seq INTEGER, PRIMARY KEY (room, n))
        """,
    ]

    static func paramsText(_ params: [[String]]) -> String {
        (try? String(decoding: JSONEncoder().encode(params), as: UTF8.self)) ?? "[]"
    }

    static func params(from text: String?) -> [[String]]? {
        guard let text, let params = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8)),
              params.allSatisfy({ !$0.isEmpty }) else { return nil }
        return params
    }
}

/// The PostgreSQL store's tables, in one place: SQLite's (`StoreSchema`) plus the room
/// leases, and on each input the epoch and process that wrote it (so a table shows that
/// no two owners ever appended to one room). A database that already has a table of one
/// of these names without the columns the store needs is refused, naming the table.
enum PostgresStoreSchema {
    /// Every table and the columns the store reads or writes.
    static let columns: [String: [String]] = [
        "dicehost_store": ["key", "value"],
        "rooms": ["id", "rules", "rules_sha256", "params", "seed", "seats", "device_rolls", "created", "header", "finished", "closed_reason"],
        "seats": ["room", "seat", "name", "token_sha256", "last_seq"],
        "inputs": ["room", "n", "input", "t", "events", "epoch", "owner"],
        "room_leases": ["room", "owner", "epoch", "expires_at"],
    ]

    /// The statements that bring a database of an older format to the current one
    /// (`StoreSchema`'s formats; PostgreSQL stores began at format 2).
    static let upgrades: [(from: String, statements: [String])] = [
        ("2", ["ALTER TABLE rooms ADD COLUMN IF NOT EXISTS turn_seconds BIGINT",
               "ALTER TABLE rooms ADD COLUMN IF NOT EXISTS abandoned BOOLEAN NOT NULL DEFAULT false",
               "ALTER TABLE seats ADD COLUMN IF NOT EXISTS has_left BOOLEAN NOT NULL DEFAULT false",
               "ALTER TABLE seats ADD COLUMN IF NOT EXISTS ready BOOLEAN NOT NULL DEFAULT false",
               "ALTER TABLE inputs ADD COLUMN IF NOT EXISTS kind TEXT NOT NULL DEFAULT 'line'"]),
    ]

    static func upgrade(from format: String) -> [String]? {
        guard let first = upgrades.firstIndex(where: { $0.from == format }) else { return nil }
        return upgrades[first...].flatMap(\.statements)
    }

    /// Taken (for its transaction) while the schema is checked and created, so two
    /// processes starting at once do not both create it.
    static let advisoryLock: Int64 = 0x6469_6365_686f_7374  // "dicehost"

    static let create = [
        "CREATE TABLE IF NOT EXISTS dicehost_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS rooms (id TEXT PRIMARY KEY, rules TEXT NOT NULL, rules_sha256 TEXT NOT NULL, params TEXT NOT NULL,
            seed TEXT NOT NULL, seats BIGINT NOT NULL, device_rolls BOOLEAN NOT NULL, created BIGINT NOT NULL, header TEXT,
            finished BIGINT, closed_reason TEXT, turn_seconds BIGINT, abandoned BOOLEAN NOT NULL DEFAULT false)
        """,
        """
        CREATE TABLE IF NOT EXISTS seats (room TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE, seat BIGINT NOT NULL,
            name TEXT NOT NULL, token_sha256 TEXT NOT NULL, last_seq BIGINT NOT NULL DEFAULT 0, has_left BOOLEAN NOT NULL DEFAULT false,
            ready BOOLEAN NOT NULL DEFAULT false, PRIMARY KEY (room, seat))
        """,
        """
        CREATE TABLE IF NOT EXISTS inputs (room TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE, n BIGINT NOT NULL,
            input TEXT NOT NULL, t BIGINT NOT NULL, events TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'line', epoch BIGINT NOT NULL, owner TEXT NOT NULL,
            PRIMARY KEY (room, n))
        """,
        // One owner a room: the process (`owner`, random each start) whose lease runs until
        // `expires_at` (the database's clock). `epoch` goes up at every takeover; a write
        // is made only by the owner of the current epoch (PostgresRoomStore.commit).
        """
        CREATE TABLE IF NOT EXISTS room_leases (room TEXT PRIMARY KEY, owner TEXT NOT NULL, epoch BIGINT NOT NULL,
            expires_at TIMESTAMPTZ NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS room_leases_owner ON room_leases (owner)",
        "CREATE INDEX IF NOT EXISTS rooms_unfinished ON rooms (id) WHERE finished IS NULL",
    ]
}

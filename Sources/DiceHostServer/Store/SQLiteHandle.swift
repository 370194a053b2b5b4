import VaporCSQLite

/// One SQLite connection driven through SQLite's C API (the copy SQLiteNIO builds), with
/// its statements prepared once and kept: the store's only C calls are here.
///
/// SQLiteNIO prepares every statement again, hands each to its thread pool and answers on
/// an event loop: for one stored input that was a parse, three thread wake-ups per
/// statement, and BEGIN and COMMIT as statements of their own — about 450 µs of CPU an
/// input where the write and its sync cost about 80. Here a transaction runs start to end
/// on the caller's thread (the store's writer), its statements bound and stepped in place.
///
/// Not thread-safe: used from one thread at a time (the store's writer thread), opened
/// without SQLite's own mutex. `@unchecked Sendable` for that reason.
final class SQLiteHandle: @unchecked Sendable {
    /// A value bound to a statement or read from a row.
    enum Value: Equatable {
        case text(String)
        case integer(Int)
        case null

        var string: String? { if case .text(let text) = self { return text } else { return nil } }
        var integer: Int? { if case .integer(let value) = self { return value } else { return nil } }
        var isNull: Bool { self == .null }
    }

    /// A row of a query, its columns by name.
    struct Row {
        let names: [String: Int]
        let values: [Value]
        func column(_ name: String) -> Value? { names[name].map { values[$0] } }
    }

    private var db: OpaquePointer?
    /// Prepared statements by their SQL, prepared on first use and reset after each.
    private var prepared: [String: OpaquePointer] = [:]

    /// Opens (creating when missing) the database at `path`.
    init(path: String) throws {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        var handle: OpaquePointer?
        let code = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let failure = SQLiteFailure(code: code, message: handle.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open")
            sqlite_nio_sqlite3_close_v2(handle)
            throw failure
        }
        db = handle
        // Extended codes, so a failure names e.g. SQLITE_IOERR_FSYNC rather than SQLITE_IOERR.
        sqlite_nio_sqlite3_extended_result_codes(handle, 1)
    }

    deinit { close() }

    func close() {
        for statement in prepared.values { sqlite_nio_sqlite3_finalize(statement) }
        prepared = [:]
        if let db { sqlite_nio_sqlite3_close_v2(db) }
        db = nil
    }

    /// Runs `sql` (a statement without rows to read) with `binds`.
    func run(_ sql: String, _ binds: [Value] = []) throws {
        try step(sql, binds) { _ in }
    }

    /// The rows `sql` gives with `binds`.
    func query(_ sql: String, _ binds: [Value] = []) throws -> [Row] {
        var rows: [Row] = []
        try step(sql, binds) { rows.append($0) }
        return rows
    }

    /// Prepares (or takes the kept) statement, binds, steps it to its end, and resets it
    /// whatever happened, so the next use starts clean.
    private func step(_ sql: String, _ binds: [Value], row: (Row) -> Void) throws {
        let statement = try statement(sql)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (index, value) in binds.enumerated() {
            let position = Int32(index + 1)
            let code: Int32
            switch value {
            case .text(let text):
                code = sqlite_nio_sqlite3_bind_text64(statement, position, text, UInt64(text.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
            case .integer(let number):
                code = sqlite_nio_sqlite3_bind_int64(statement, position, Int64(number))
            case .null:
                code = sqlite_nio_sqlite3_bind_null(statement, position)
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
        var names: [String: Int]?
        while true {
            let code = sqlite_nio_sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code) }
            let count = Int(sqlite_nio_sqlite3_column_count(statement))
            if names == nil {
                names = Dictionary((0..<count).map { (sqlite_nio_sqlite3_column_name(statement, Int32($0)).map { String(cString: $0) } ?? "", $0) },
                                   uniquingKeysWith: { first, _ in first })
            }
            row(Row(names: names ?? [:], values: (0..<count).map { value(statement, Int32($0)) }))
        }
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> Value {
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(Int(sqlite_nio_sqlite3_column_int64(statement, column)))
        case SQLITE_NULL: return .null
        default:
            // Text (a stored float or blob reads as its text: the store writes neither).
            guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return .null }
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        }
    }

    private func statement(_ sql: String) throws -> OpaquePointer {
        if let kept = prepared[sql] { return kept }
        guard let db else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the store is closed") }
        var statement: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw failure(code) }
        prepared[sql] = statement
        return statement
    }

    private func failure(_ code: Int32) -> SQLiteFailure {
        SQLiteFailure(code: code, message: db.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "error \(code)")
    }

    /// SQLite copies a bound text before the call returns (SQLITE_TRANSIENT, a C macro).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// An SQLite result code other than success, with SQLite's message.
struct SQLiteFailure: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    /// The primary result code (an extended code's low byte).
    var primary: Int32 { code & 0xff }
    var isBusy: Bool { primary == SQLITE_BUSY || primary == SQLITE_LOCKED }
    var isReadOnly: Bool { primary == SQLITE_READONLY || primary == SQLITE_PERM }
    var isNotADatabase: Bool { primary == SQLITE_NOTADB }
    var isFull: Bool { primary == SQLITE_FULL }
    var cannotOpen: Bool { primary == SQLITE_CANTOPEN }

    var description: String { "\(message) (SQLite code \(code))" }
}

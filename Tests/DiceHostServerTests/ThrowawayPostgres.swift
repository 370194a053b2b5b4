@testable import DiceHostServer
import Foundation
import Logging
import PostgresNIO

/// One throwaway PostgreSQL server for the test process (scripts/throwaway-postgres.sh):
/// started by the first test that needs it, in a temp folder, and stopped (the folder
/// deleted) by the script once this process has ended. Each test gets a database of its own.
enum ThrowawayPostgres {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// Whether Debian's PostgreSQL server binaries are here (scripts/ensure-postgres.sh installs them).
    static let isInstalled: Bool = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.contains { FileManager.default.isExecutableFile(atPath: "\(root)/\($0)/bin/initdb") }
    }()

    static let notInstalled = "PostgreSQL is not installed (apt-get install postgresql, or run make test as root): the PostgreSQL store tests are skipped"

    /// The server's address (its `dicehost` database).
    private static let server = Task<String, Error> {
        let folder = "/tmp/dicehost-pg-" + String(UInt32.random(in: .min ... .max), radix: 16)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repository + "/scripts/throwaway-postgres.sh", "start", folder, String(ProcessInfo.processInfo.processIdentifier)]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let url = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, url.hasPrefix("postgres://") else {
            throw StoreError("scripts/throwaway-postgres.sh could not start PostgreSQL (status \(process.terminationStatus)): \(problem)")
        }
        return url
    }

    /// The address of a new, empty database on the throwaway server.
    static func database() async throws -> String {
        let base = try await server.value
        let name = "t" + String(UInt64.random(in: 0 ... .max), radix: 36)
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = try await PostgresConnection.connect(configuration: try PostgresAddress(base).connectionConfiguration(), id: 1, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return String(base.dropLast("dicehost".count)) + name
    }

    /// Runs `sql` on the database at `url` and returns the first column of each row as text.
    @discardableResult
    static func query(_ url: String, _ sql: String) async throws -> [String] {
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = try await PostgresConnection.connect(configuration: try PostgresAddress(url).connectionConfiguration(), id: 1, logger: logger)
        var values: [String] = []
        do {
            for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String?.self) {
                values.append(value ?? "NULL")
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return values
    }
}

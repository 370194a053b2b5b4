import Foundation
import PostgresNIO

/// A `--store postgres://user:password@host:port/database` address, checked: every
/// part a connection needs, or a `StoreError` saying which part is wrong. Messages name
/// the address without its password (`description`).
struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    var user: String
    var password: String?
    var host: String
    var port: Int
    var database: String
    /// libpq's `sslmode`: disable, prefer (the default, as libpq's) or require.
    var sslMode: String

    /// Whether `text` names a PostgreSQL store rather than an SQLite file.
    static func isPostgres(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    init(_ text: String) throws {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw StoreError("--store \(Self.withoutPassword(text)) is not a PostgreSQL address; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        let shown = Self.withoutPassword(text)
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            throw StoreError("--store \(shown) names no user; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard let host = components.host, !host.isEmpty else {
            throw StoreError("--store \(shown) names no host; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        // URLComponents refuses a port that is not a number; a number is checked here.
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw StoreError("--store \(shown): the port must be from 1 to 65535, not \(port)") }
        let database = String(components.path.drop(while: { $0 == "/" })).removingPercentEncoding ?? ""
        guard !database.isEmpty, !database.contains("/") else {
            throw StoreError("--store \(shown) names no database (or more than one path part); write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        var sslMode = "prefer"
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("sslmode", let mode) where ["disable", "prefer", "require"].contains(mode): sslMode = mode
            case ("sslmode", let mode): throw StoreError("--store \(shown): sslmode must be disable, prefer or require, not '\(mode)'")
            case (let name, _): throw StoreError("--store \(shown): unknown option '\(name)' (the address takes sslmode=disable|prefer|require)")
            }
        }
        self.user = user
        self.password = components.password?.removingPercentEncoding
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
    }

    /// The address as messages show it: no password.
    var description: String { "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" }

    /// The pool's configuration; its connections start with `parameters` set (PostgreSQL settings).
    func clientConfiguration(parameters: [(String, String)]) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "require": tls = .require(.makeClientConfiguration())
        default: tls = .prefer(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = parameters
        configuration.options.maximumConnections = 8
        return configuration
    }

    /// One connection's configuration (the store's first connection, which checks the
    /// address and the schema before the pool starts).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "require": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        default: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// `text` with any password replaced by `***`, for messages about an address that does not parse.
    static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else { return text }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}

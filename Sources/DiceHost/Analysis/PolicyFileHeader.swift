import Foundation

/// The first line of a policy module `dicehost solve --policy` writes: which policy it
/// holds and in which format, so `solve` knows a file it may replace and `odds --vs`
/// refuses a module of the wrong kind or a newer format instead of playing it wrongly.
///
///     -- dicehost-policy: version=2 kind=best-play
///
/// Modules written before the header (format 1) are still known, by their first comment
/// line: "-- Best play for …", an equilibrium's ending "an equilibrium over what each
/// seat sees.". A module a designer wrote by hand has no header and is played as it is.
public struct PolicyFileHeader: Equatable, Sendable {
    /// What a policy module holds.
    public enum Kind: String, Sendable, CaseIterable {
        /// The best move in each position of a game where everyone sees everything: `move(g, p)`.
        case bestPlay = "best-play"
        /// An equilibrium keyed by what a seat sees: `move(v, p)` and `chances(v)`.
        case equilibrium
    }

    /// The format `solve --policy` writes.
    public static let currentVersion = 2
    static let prefix = "-- dicehost-policy:"
    static let firstCommentLine = "-- Best play for "
    static let equilibriumEnding = "an equilibrium over what each seat sees."

    public var version: Int
    /// Nil for a kind this version does not know (a module of a newer format).
    public var kind: Kind?

    public init(version: Int = currentVersion, kind: Kind) {
        self.version = version
        self.kind = kind
    }

    /// The header as the module's first line.
    public var line: String { "\(Self.prefix) version=\(version) kind=\(kind?.rawValue ?? "unknown")" }

    /// The header of a module's text, or nil when it is not one `solve --policy` wrote.
    public static func read(_ text: String) -> PolicyFileHeader? {
        let first = text.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" }
        if first.hasPrefix(prefix) {
            var fields: [Substring: Substring] = [:]
            for field in first.dropFirst(prefix.count).split(separator: " ") {
                guard let eq = field.firstIndex(of: "=") else { continue }
                fields[field[..<eq]] = field[field.index(after: eq)...]
            }
            guard let version = fields["version"].flatMap({ Int($0) }), version >= 1 else { return nil }
            var header = PolicyFileHeader(version: version, kind: .bestPlay)
            header.kind = fields["kind"].flatMap { Kind(rawValue: String($0)) }
            return header
        }
        guard first.hasPrefix(firstCommentLine) else { return nil }
        return PolicyFileHeader(version: 1, kind: first.hasSuffix(equilibriumEnding) ? .equilibrium : .bestPlay)
    }

    /// The header of a module file (only its start is read), or nil.
    public static func read(file: String) -> PolicyFileHeader? {
        guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4096) else { return nil }
        return read(String(decoding: data, as: UTF8.self))
    }

    /// Why a module with this header cannot be played as `expected`, or nil when it can.
    public func problem(playedAs expected: Kind) -> String? {
        if version > Self.currentVersion || kind == nil {
            return "written in policy format \(version), which this dicehost does not read (it reads up to \(Self.currentVersion)): write it again with `dicehost solve --policy`"
        }
        guard let kind, kind != expected else { return nil }
        switch kind {
        case .bestPlay:
            return "holds best play for a game where everyone sees everything, but the game analysed has secrets: write it with `dicehost solve` (without --open)"
        case .equilibrium:
            return "holds an equilibrium of a game with secrets, but the game as analysed here has none (no view, or --open): write it with `dicehost solve --open`, or drop --open here"
        }
    }
}

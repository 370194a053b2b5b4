/// The players a game is asked to seat, checked against its rules before it starts, so
/// that a wrong table is a usage error (the person typed it) and not a rules error.
///
///     let names = try PlayerList.parse("Ann, Bob", for: ruleSet)   // ["Ann", "Bob"]
public enum PlayerList {
    /// The longest player name taken.
    public static let maxNameLength = 32
    /// The most players any game seats.
    public static let maxPlayers = 64

    /// Why a list of players does not fit the rules.
    public struct UsageError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// "Ann, Bob" → ["Ann", "Bob"], checked with `validate`.
    public static func parse(_ text: String, for rules: RuleSet) throws -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        try validate(names, for: rules)
        return names
    }

    /// Throws `UsageError` unless the names fit the rules' table, each is a plain word
    /// (commands name players as `as NAME …`, so a name has no spaces or control characters)
    /// and no two look alike (`PlayerName.looksAlike`).
    public static func validate(_ names: [String], for rules: RuleSet) throws {
        let wanted = rules.minPlayers == rules.maxPlayers ? "\(rules.minPlayers)" : "\(rules.minPlayers) to \(rules.maxPlayers)"
        guard names.count <= maxPlayers, (rules.minPlayers...max(rules.minPlayers, rules.maxPlayers)).contains(names.count) else {
            throw UsageError(description: "\(rules.name) needs \(wanted) players, got \(names.count)")
        }
        for name in names {
            guard !name.isEmpty else { throw UsageError(description: "a player name is empty (names are separated by commas, e.g. --players Ann,Bob)") }
            guard name.count <= maxNameLength else {
                throw UsageError(description: "player name '\(name.prefix(maxNameLength))…' is longer than \(maxNameLength) characters")
            }
            guard !name.unicodeScalars.contains(where: { $0.properties.isWhitespace || GameEvent.needsEscape($0) }) else {
                throw UsageError(description: "player name \(GameEvent.oneLine("'\(name)'")) has a space or a control character")
            }
        }
        var seen = Set<String>()
        if let twice = names.first(where: { !seen.insert($0).inserted }) {
            throw UsageError(description: "player '\(twice)' is named twice (names must be distinct)")
        }
        // Every event names its player: two names that look alike could pass for each other.
        var skeletons: [String: String] = [:]
        for name in names {
            let skeleton = PlayerName.skeleton(name)
            if let earlier = skeletons[skeleton] {
                throw UsageError(description: "player \(GameEvent.oneLine("'\(name)'")) looks like '\(earlier)' (names must be told apart at a glance: "
                    + "case, look-alike letters of other scripts, fullwidth forms and 0/O, 1/l/I count as the same)")
            }
            skeletons[skeleton] = name
        }
    }

    /// As many players as the rules need at least (two for a game of two or more).
    public static func defaultNames(for rules: RuleSet) -> [String] {
        let count = max(rules.minPlayers, min(2, rules.maxPlayers))
        let names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
        return Array(names.prefix(count)) + (count > names.count ? (names.count + 1...count).map { "P\($0)" } : [])
    }
}

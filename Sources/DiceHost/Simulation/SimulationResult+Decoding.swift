import Foundation

extension SimulationResult {
    /// Why a result file was refused: the field (`result.wins[2]`) and what was wrong.
    public struct DecodeError: Error, Equatable, CustomStringConvertible {
        public let field: String
        public let message: String
        public var description: String { field.isEmpty ? message : "\(field): \(message)" }
    }

    /// The largest result file read.
    public static let maxJSONBytes = 64 << 20

    /// Reads a result written by `dicehost sim --json` (an object whose `result` member is
    /// the result) and checks every field: counts are whole numbers from 0 that add up,
    /// ranges lie in the study and do not overlap, nothing is NaN. A file that passes can
    /// be merged and reported without overflow or out-of-range access.
    public static func decode(json data: Data) throws -> SimulationResult {
        guard data.count <= maxJSONBytes else {
            throw DecodeError(field: "", message: "the file is larger than \(maxJSONBytes >> 20) MiB")
        }
        struct Document: Decodable { var result: SimulationResult }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let result: SimulationResult
        do {
            result = try decoder.decode(Document.self, from: data).result
        } catch let error as DecodingError {
            // Foundation on Linux reports a number that does not fit its field as "not
            // valid JSON" with no field: find the field from the parsed tree.
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
               let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
               let (field, number) = firstNonInteger(in: tree, path: "") {
                throw DecodeError(field: field, message: "expected a whole number, got \(number)")
            }
            throw describe(error)
        }
        try result.validate()
        return result
    }

    /// The first number in a field that holds a whole number (all but `seconds` and a
    /// metric's sums and extremes) that is not a whole number an Int or UInt64 can hold.
    static func firstNonInteger(in value: Any, path: String) -> (String, String)? {
        if let object = value as? [String: Any] {
            for (key, child) in object.sorted(by: { $0.key < $1.key }) {
                let childPath = path.isEmpty ? key : path + "." + key
                if key == "seconds" || (path.hasPrefix("result.metrics.") && ["sum", "sumOfSquares", "minimum", "maximum"].contains(key)) { continue }
                if let found = firstNonInteger(in: child, path: childPath) { return found }
            }
        } else if let array = value as? [Any] {
            for (i, child) in array.enumerated() {
                if let found = firstNonInteger(in: child, path: path + "[\(i)]") { return found }
            }
        } else if let number = value as? NSNumber, !(value is Bool) {
            let d = number.doubleValue
            let fits = d.isFinite && d == d.rounded() && d >= -9.2e18 && d <= (path.hasSuffix("seed") ? 1.8e19 : 9.2e18)
            if !fits { return (path, number.stringValue) }
        }
        return nil
    }

    static func describe(_ error: DecodingError) -> DecodeError {
        func path(_ keys: [CodingKey]) -> String {
            keys.reduce("") { text, key in key.intValue.map { text + "[\($0)]" } ?? (text.isEmpty ? key.stringValue : text + "." + key.stringValue) }
        }
        switch error {
        case let .keyNotFound(key, context) where context.codingPath.isEmpty:
            return DecodeError(field: "", message: "not a simulation result: '\(key.stringValue)' is missing")
        case let .keyNotFound(key, context): return DecodeError(field: path(context.codingPath + [key]), message: "is missing")
        case let .valueNotFound(type, context): return DecodeError(field: path(context.codingPath), message: "is null, expected \(expected(type))")
        case let .typeMismatch(type, context): return DecodeError(field: path(context.codingPath), message: "expected \(expected(type))")
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty { return DecodeError(field: "", message: "not a simulation result (not JSON: \(context.debugDescription))") }
            return DecodeError(field: path(context.codingPath), message: "not valid: \(context.debugDescription)")
        @unknown default: return DecodeError(field: "", message: "not a simulation result: \(error)")
        }
    }

    static func expected(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is UInt64.Type: return "a whole number"
        case is Double.Type: return "a number"
        case is String.Type: return "a string"
        case is [Any].Type: return "a list"
        default: return type == [String: Any].self ? "an object" : "\(type)"
        }
    }

    /// Throws `DecodeError` naming the first field that is out of range or inconsistent.
    public func validate() throws {
        func fail(_ field: String, _ message: String) -> DecodeError { DecodeError(field: "result." + field, message: message) }
        guard format == 1 else { throw fail("format", "must be 1 (the format this dicehost reads), got \(format)") }
        guard (1...PlayerList.maxPlayers).contains(study.players.count) else {
            throw fail("study.players", "must name 1 to \(PlayerList.maxPlayers) players, got \(study.players.count)")
        }
        // Reports key win rates by player: each name must be one a game could have had.
        for (i, name) in study.players.enumerated() {
            guard !name.isEmpty, name.count <= PlayerList.maxNameLength,
                  !name.unicodeScalars.contains(where: { $0.properties.isWhitespace || GameEvent.needsEscape($0) }) else {
                throw fail("study.players[\(i)]", "must be a player name of 1 to \(PlayerList.maxNameLength) characters without spaces or control characters, got \(GameEvent.oneLine("'\(name.prefix(40))'"))")
            }
            guard !study.players[..<i].contains(name) else {
                throw fail("study.players[\(i)]", "'\(name)' is named twice (player names must be distinct)")
            }
        }
        guard (1...Simulation.maxGames).contains(study.games) else {
            throw fail("study.games", "must be from 1 to \(Simulation.maxGames), got \(study.games)")
        }
        guard (1...Simulation.maxMoveLimit).contains(study.moveLimit) else {
            throw fail("study.moveLimit", "must be from 1 to \(Simulation.maxMoveLimit), got \(study.moveLimit)")
        }
        var covered = 0, previousUpper = 0
        for (i, range) in ranges.enumerated() {
            guard range.count == 2 else { throw fail("ranges[\(i)]", "expected [lower, upper], got \(range.count) numbers") }
            guard 0 <= range[0], range[0] < range[1], range[1] <= study.games else {
                throw fail("ranges[\(i)]", "[\(range[0]), \(range[1])] is not a non-empty range of the study's games 0..<\(study.games)")
            }
            guard i == 0 || range[0] >= previousUpper else {
                throw fail("ranges[\(i)]", "must start at or after the end of the range before it (\(previousUpper))")
            }
            previousUpper = range[1]
            covered += range[1] - range[0]  // at most study.games in all: disjoint ranges inside it
        }
        guard games == covered else { throw fail("games", "is \(games), but the ranges cover \(covered) games") }
        guard wins.count == study.players.count else {
            throw fail("wins", "expected \(study.players.count) counts (one per player), got \(wins.count)")
        }
        for (field, count) in wins.enumerated().map({ ("wins[\($0.offset)]", $0.element) }) + [("draws", draws), ("errors", errors), ("unfinished", unfinished)] {
            guard (0...games).contains(count) else { throw fail(field, "must be from 0 to the \(games) games played, got \(count)") }
        }
        let ended = wins.reduce(draws, +)  // each term is at most games <= 2^40: no overflow
        guard ended + errors + unfinished == games else {
            throw fail("games", "wins, draws, errors and unfinished add up to \(ended + errors + unfinished), not the \(games) games played")
        }
        if let failure = firstError {
            guard ranges.contains(where: { $0[0] <= failure.index && failure.index < $0[1] }) else {
                throw fail("firstError.index", "game \(failure.index) is not in the result's ranges")
            }
            guard errors > 0 else { throw fail("firstError", "is set but errors is 0") }
        }
        for (field, tally) in [("rolls", rolls), ("turns", turns)] {
            var total = 0
            for (value, count) in tally.counts.sorted(by: { $0.key < $1.key }) {
                guard value >= 0 else { throw fail("\(field).\(value)", "a game cannot last a negative number of \(field)") }
                guard value <= Simulation.maxGames else { throw fail("\(field).\(value)", "a game cannot last more than \(Simulation.maxGames) \(field)") }
                guard (0...games).contains(count) else { throw fail("\(field).\(value)", "must be a count from 0 to \(games), got \(count)") }
                total += count  // at most games per entry, and fewer entries than 2^23 per MiB of JSON
                guard total <= games else { break }
            }
            guard total == ended else { throw fail(field, "the histogram counts \(total) games, but \(ended) ended (won or drawn)") }
        }
        for (name, tally) in metrics.sorted(by: { $0.key < $1.key }) {
            let field = "metrics.\(name)"
            guard (0...MetricTally.maxCount).contains(tally.count) else { throw fail(field + ".count", "must be from 0 to \(MetricTally.maxCount), got \(tally.count)") }
            guard (0...min(games, tally.count)).contains(tally.games) else {
                throw fail(field + ".games", "must be from 0 to \(min(games, tally.count)) (games played, times recorded), got \(tally.games)")
            }
            for (part, value) in [("sum", tally.sum), ("sumOfSquares", tally.sumOfSquares), ("minimum", tally.minimum ?? 0), ("maximum", tally.maximum ?? 0)] {
                guard !value.isNaN else { throw fail(field + "." + part, "is NaN") }
            }
            guard tally.sumOfSquares >= 0 else { throw fail(field + ".sumOfSquares", "cannot be negative") }
            guard (tally.minimum == nil) == (tally.count == 0), (tally.maximum == nil) == (tally.count == 0) else {
                throw fail(field, "minimum and maximum must be given exactly when count is not 0")
            }
            if let low = tally.minimum, let high = tally.maximum, low > high { throw fail(field, "minimum \(low) is above maximum \(high)") }
        }
        guard seconds.isFinite, seconds >= 0 else { throw fail("seconds", "must be a finite number from 0, got \(seconds)") }
    }
}

import Foundation
import Testing

/// Every usage error exits 2 with a clear message (0 ok, 1 failure, 2 usage, 3 rules do not load).
@Suite struct UsageExitStatusTests {
    func expectUsage(_ arguments: [String], _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let started = ContinuousClock.now
        let result = try runDicehost(arguments)
        #expect(ContinuousClock.now - started < .seconds(60), sourceLocation: sourceLocation)
        #expect(result.status == 2, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func parserErrorsExitTwoNotSixtyFour() throws {
        try expectUsage(["play"], "Error: Missing expected argument '<rules>'")
        try expectUsage(["sim", "rules/craps.lua", "--games", "1e12"], "Error: The value '1e12' is invalid for '--games <games>'")
        try expectUsage(["play", "examples/rules/pig.lua", "--seed", "-3"], "--seed")
        try expectUsage(["frobnicate"], "Error: Unexpected argument 'frobnicate'")
        try expectUsage(["sim", "merge"], "Error: Missing expected argument '<files> ...'")
    }

    @Test func helpAndVersionExitZero() throws {
        for arguments in [["--help"], ["--version"], ["play", "--help"], ["help", "sim"]] {
            let result = try runDicehost(arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(!result.stdout.isEmpty)
        }
    }

    @Test func aWrongTableOfPlayersIsUsageNotBrokenRules() throws {
        try expectUsage(["play", "rules/race.lua", "--players", "A"], "dicehost: --players: Race to Space needs 2 to 4 players, got 1\n")
        try expectUsage(["play", "rules/race.lua", "--players", "A,B,C,D,E"], "dicehost: --players: Race to Space needs 2 to 4 players, got 5\n")
        try expectUsage(["play", "rules/race.lua", "--players", "Ann,Ann"], "dicehost: --players: player 'Ann' is named twice (names must be distinct)\n")
        try expectUsage(["play", "rules/race.lua", "--players", "Ann,\u{0410}nn"], "dicehost: --players: player '\u{0410}nn' looks like 'Ann' (names must be told apart at a glance")
        try expectUsage(["play", "rules/race.lua", "--players", "Ann,\u{FF21}nn"], "looks like 'Ann'")
        try expectUsage(["play", "rules/race.lua", "--players", "Ann,"], "dicehost: --players: a player name is empty (names are separated by commas, e.g. --players Ann,Bob)\n")
        try expectUsage(["play", "rules/race.lua", "--players", "Ann,Bo b"], "dicehost: --players: player name 'Bo b' has a space or a control character\n")
        try expectUsage(["play", "rules/race.lua", "--players", "Ann,B\nob"], "dicehost: --players: player name 'B\\nob' has a space or a control character\n")
        try expectUsage(["sim", "rules/race.lua", "--players", "A", "--games", "1"], "dicehost: --players: Race to Space needs 2 to 4 players, got 1\n")
        let broken = try runDicehost(["play", "no/such.lua", "--players", "A"])
        #expect(broken.status == 3)
    }

    @Test func simNumbersOutOfRangeAreUsageErrors() throws {
        let sim = ["sim", "rules/craps.lua", "--set", "rounds=1", "--players", "Ann"]
        try expectUsage(sim + ["--games=-1"], "dicehost: --games must be from 1 to 1099511627776, got -1\n")
        try expectUsage(sim + ["--games", "0"], "dicehost: --games must be from 1 to 1099511627776, got 0\n")
        try expectUsage(sim + ["--games", "1000000000000000"], "dicehost: --games must be from 1 to 1099511627776, got 1000000000000000\n")
        try expectUsage(sim + ["--games", "99999999999999999999"], "Error: The value '99999999999999999999' is invalid for '--games <games>'")
        try expectUsage(sim + ["--threads", "0"], "dicehost: --threads must be from 1 to 256, got 0\n")
        try expectUsage(sim + ["--threads", "100000"], "dicehost: --threads must be from 1 to 256, got 100000\n")
        try expectUsage(sim + ["--move-limit", "0"], "dicehost: --move-limit must be from 1 to 100000000, got 0\n")
        try expectUsage(sim + ["--move-limit", "100000001"], "dicehost: --move-limit must be from 1 to 100000000, got 100000001\n")
        for shard in ["0/4", "5/4", "1/0", "1/1048577", "9223372036854775807/9223372036854775807", "1/99999999999999999999", "a/b", "1/2/3"] {
            try expectUsage(sim + ["--shard", shard], "dicehost: --shard expects i/n with 1 <= i <= n <= 1048576, e.g. 3/8, got '\(shard)'\n")
        }
    }
}

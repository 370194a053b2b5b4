import Foundation
import Testing

/// `--players`, `--set`, `--max-states` and `--max-memory` are declared once (option
/// groups): every command that takes them lists them with the same help and refuses the
/// same mistake with the same message.
@Suite struct SharedOptionsCommandTests {
    static let tableCommands = ["play", "sim", "odds", "solve", "fuzz", "report"]

    @Test func everyCommandThatSetsUpATableListsTheSameOptions() throws {
        var helps: [String: String] = [:]
        for command in Self.tableCommands + ["check"] {
            let help = try runDicehost([command, "--help"])
            #expect(help.status == 0, "\(command): \(help)")
            helps[command] = help.stdout
        }
        let setHelp = "--set <set>             Override a param, e.g. --set target=30 (repeatable)."
        for (command, help) in helps {
            #expect(help.contains(setHelp), "\(command): \(help)")
        }
        for command in Self.tableCommands {
            #expect(helps[command]?.contains("--players <players>     Comma-separated player names, e.g. Ann,Bob,Cy") == true, "\(command)")
        }
        for command in ["odds", "solve"] {
            #expect(helps[command]?.contains("--max-states <max-states>") == true, "\(command)")
            #expect(helps[command]?.contains("--max-memory <max-memory>") == true, "\(command)")
        }
    }

    @Test func aMalformedSetIsTheSameUsageErrorEverywhere() throws {
        for command in Self.tableCommands + ["check"] {
            let result = try runDicehost([command, "examples/rules/pig.lua", "--set", "target"])
            #expect(result.status == 2, "\(command): \(result)")
            #expect(result.stderr == "dicehost: --set expects key=value, got 'target'\n", "\(command): \(result.stderr)")
        }
    }

    @Test func explorationLimitsAreCheckedAlikeInOddsAndSolve() throws {
        for command in ["odds", "solve"] {
            let states = try runDicehost([command, "examples/rules/pig.lua", "--max-states", "0"])
            #expect(states.status == 2 && states.stderr == "dicehost: --max-states must be at least 1, got 0\n", "\(command): \(states)")
            let memory = try runDicehost([command, "examples/rules/pig.lua", "--max-memory", "lots"])
            #expect(memory.status == 2 && memory.stderr == "dicehost: --max-memory takes a size such as 8G, 500M or 64K, got 'lots'\n",
                    "\(command): \(memory)")
        }
    }

    @Test func aWrongTableIsTheSameUsageErrorEverywhere() throws {
        for command in ["sim", "odds", "solve", "fuzz", "report"] {
            let result = try runDicehost([command, "examples/rules/pig.lua", "--players", "Ann,Ann"])
            #expect(result.status == 2, "\(command): \(result)")
            #expect(result.stderr.contains("dicehost: --players: player 'Ann' is named twice"), "\(command): \(result.stderr)")
        }
    }
}

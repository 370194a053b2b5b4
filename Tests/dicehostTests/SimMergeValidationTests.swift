import Foundation
import Testing

/// `sim merge` of a hand-edited result: the file and the field named, exit 1, never a trap.
@Suite struct SimMergeValidationTests {
    @Test func aHandEditedResultIsRefusedNamingFileAndField() throws {
        let run = try runDicehost(["sim", "rules/craps.lua", "--set", "rounds=1", "--players", "Ann", "--games", "40", "--seed", "3", "--json", "--threads", "1"])
        #expect(run.status == 0, "\(run)")
        let edits: [(String, String, String)] = [
            ("\"draws\" : ", "\"draws\" : -7, \"x\" : ", "result.draws: must be from 0 to the 40 games played, got -7"),
            ("\"unfinished\" : ", "\"unfinished\" : 1e300, \"z\" : ", "result.unfinished: expected a whole number, got 1e+300"),
            ("\"seconds\" : ", "\"seconds\" : \"nan\", \"y\" : ", "result.seconds: must be a finite number from 0, got nan"),
            ("\"wins\" : [", "\"wins\" : [0, ", "result.wins: expected 1 counts (one per player), got 2"),
        ]
        for (find, replace, message) in edits {
            guard let range = run.stdout.range(of: find) else { Issue.record("no \(find) in \(run.stdout)"); continue }
            let path = try writeTemporary(run.stdout.replacingCharacters(in: range, with: replace), name: "part.json")
            let started = ContinuousClock.now
            let merged = try runDicehost(["sim", "merge", path])
            #expect(ContinuousClock.now - started < .seconds(60))
            #expect(merged.status == 1, "\(merged)")
            #expect(merged.stderr == "dicehost: \(path): \(message)\n")
        }
        let fifoFolder = try writeTemporary("", name: "unused")
        let fifo = (fifoFolder as NSString).deletingLastPathComponent + "/pipe.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        let piped = try runDicehost(["sim", "merge", fifo])
        #expect(piped.status == 1)
        #expect(piped.stderr == "dicehost: \(fifo): cannot read the file: it is not a regular file\n")
    }
    /// Fields that are each valid alone but not together (or names a report keys by)
    /// are refused by name, before any report is made from them.
    @Test func aResultWithRepeatedOrBadPlayerNamesIsRefusedNotATrap() throws {
        let run = try runDicehost(["sim", "rules/race.lua", "--games", "20", "--seed", "3", "--json", "--threads", "1"])
        #expect(run.status == 0, "\(run)")
        let cases: [([String], String)] = [
            (["Ann", "Ann"], "result.study.players[1]: 'Ann' is named twice (player names must be distinct)"),
            (["Ann", ""], "result.study.players[1]: must be a player name of 1 to 32 characters without spaces or control characters, got ''"),
            (["Ann", "B b"], "result.study.players[1]: must be a player name of 1 to 32 characters without spaces or control characters, got 'B b'"),
        ]
        for (players, message) in cases {
            var document = try #require(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            var result = try #require(document["result"] as? [String: Any])
            var study = try #require(result["study"] as? [String: Any])
            study["players"] = players
            result["study"] = study
            document["result"] = result
            let text = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
            let path = try writeTemporary(text, name: "part.json")
            for arguments in [["sim", "merge", path], ["sim", "merge", "--json", path]] {
                let merged = try runDicehost(arguments)
                #expect(merged.status == 1, "\(merged)")
                #expect(merged.stderr == "dicehost: \(path): \(message)\n")
            }
        }
    }
}

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
            #expect(ContinuousClock.now - started < .seconds(20))
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
}

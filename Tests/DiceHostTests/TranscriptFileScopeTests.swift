import DiceHost
import Foundation
import Testing

/// `save` and `load` inside a rule test: writes go to a fresh temporary folder, loads stay
/// in the test's folders, and cycles or deep nesting are clear errors, not a crash.
@Suite struct TranscriptFileScopeTests {
    let rules = """
        local r = rules { name = "Count", players = {1, 2}, dice = "1d6" }
        function r.setup(g) g.state.total = 0 end
        function r.roll(g, p, r) g.state.total = g.state.total + r.total g:say("total %d", g.state.total) end
        return r
        """

    /// A folder holding rules.lua and the given transcripts (header added), and the played result of `name`.
    func play(_ name: String, _ files: [String: String], in folder: String? = nil) throws -> (Transcript, String) {
        let folder = try folder ?? makeScratchFolder()
        try rules.write(toFile: folder + "/rules.lua", atomically: false, encoding: .utf8)
        for (file, body) in files {
            try ("rules: rules.lua\nplayers: Ann\nseed: 1\n\nturn Ann\n" + body).write(toFile: folder + "/" + file, atomically: false, encoding: .utf8)
        }
        let started = ContinuousClock.now
        let played = try Transcript(path: folder + "/" + name).play()
        #expect(ContinuousClock.now - started < .seconds(30))
        return (played, folder)
    }

    func outputs(_ t: Transcript) -> [[String]] { t.steps.map(\.expected) }

    @Test func aSaveInATestWritesToItsTemporaryFolderAndShowsThePathAsWritten() throws {
        let (played, folder) = try play("a.txt", ["a.txt": "> roll 3\n> save saved.txt\n> load saved.txt\n> roll 2\n"])
        #expect(outputs(played) == [["roll Ann ⚂", "say total 3"], ["saved 1 command to saved.txt"],
                                    ["loaded saved.txt: Count, Ann, 1 command replayed"], ["roll Ann ⚁", "say total 5"]])
        #expect(!FileManager.default.fileExists(atPath: folder + "/saved.txt"))
    }

    @Test func aSaveCannotLeaveTheTemporaryFolder() throws {
        let outside = try makeScratchFolder()
        for target in ["../escaped.txt", outside + "/escaped.txt", "sub/../../escaped.txt", ".."] {
            let (played, folder) = try play("a.txt", ["a.txt": "> save \(target)\n"])
            #expect(outputs(played) == [["error: cannot write \(target): a test may only write inside its own temporary folder"]])
            #expect(!FileManager.default.fileExists(atPath: folder + "/escaped.txt"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    }

    @Test func aTranscriptThatLoadsItselfIsACycle() throws {
        let (played, _) = try play("self.txt", ["self.txt": "> roll 3\n> load self.txt\n> roll 1\n"])
        #expect(outputs(played) == [["roll Ann ⚂", "say total 3"],
                                    ["error: cannot load self.txt: it is already being loaded (a cycle: self.txt -> self.txt)"],
                                    ["roll Ann ⚀", "say total 4"]])
    }

    @Test func transcriptsThatLoadEachOtherAreACycle() throws {
        let (played, _) = try play("a.txt", ["a.txt": "> load b.txt\n> roll 1\n", "b.txt": "> roll 2\n> load a.txt\n"])
        #expect(outputs(played) == [["error: cannot load a.txt: it is already being loaded (a cycle: a.txt -> b.txt -> a.txt)"],
                                    ["roll Ann ⚀", "say total 1"]])
        let (three, _) = try play("a.txt", ["a.txt": "> load b.txt\n", "b.txt": "> load c.txt\n", "c.txt": "> load ./b.txt\n"])
        #expect(outputs(three) == [["error: cannot load ./b.txt: it is already being loaded (a cycle: b.txt -> c.txt -> b.txt)"]])
    }

    @Test func loadsNestAtMostEightDeep() throws {
        var files: [String: String] = [:]
        for i in 0..<12 { files["t\(i).txt"] = "> load t\(i + 1).txt\n" }
        files["t12.txt"] = "> roll 1\n"
        let (played, _) = try play("t0.txt", files)
        #expect(outputs(played) == [["error: cannot load t8.txt: loads nest more than 8 deep"]])
        let (shallow, _) = try play("t5.txt", files)
        // Seven deep is allowed (the files expect no output, hence the warning).
        #expect(outputs(shallow) == [["loaded t6.txt: Count, Ann, 1 command replayed",
                                      "warning: 1 command gave different output than when saved (the rules changed?), first: load t7.txt"]])
    }

    @Test func aLoadCannotLeaveTheTestFolder() throws {
        let outside = try makeScratchFolder()
        try rules.write(toFile: outside + "/rules.lua", atomically: false, encoding: .utf8)
        try "rules: rules.lua\nplayers: Ann\nseed: 1\n\nturn Ann\n".write(toFile: outside + "/other.txt", atomically: false, encoding: .utf8)
        let folder = try makeScratchFolder()
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.txt", withDestinationPath: outside + "/other.txt")
        let name = (outside as NSString).lastPathComponent
        for target in [outside + "/other.txt", "../\(name)/other.txt", "link.txt"] {
            let (played, _) = try play("a.txt", ["a.txt": "> load \(target)\n"], in: folder)
            #expect(outputs(played) == [["error: cannot load \(target): a test may only load files in its own folder or saved by it"]])
        }
        let (missing, _) = try play("a.txt", ["a.txt": "> load nowhere.txt\n"], in: folder)
        #expect(outputs(missing) == [["error: cannot load nowhere.txt: no such file"]])
    }

    @Test func loadingAFIFOOrAFolderIsRefusedWithoutBlocking() throws {
        let folder = try makeScratchFolder()
        #expect(mkfifo(folder + "/pipe.txt", 0o600) == 0)
        try FileManager.default.createDirectory(atPath: folder + "/dir.txt", withIntermediateDirectories: false)
        let (played, _) = try play("a.txt", ["a.txt": "> load pipe.txt\n> load dir.txt\n"], in: folder)
        #expect(outputs(played) == [["error: \(folder)/pipe.txt:0: cannot read the test file: it is a FIFO, not a regular file"],
                                    ["error: \(folder)/dir.txt:0: cannot read the test file: it is a folder, not a regular file"]])
    }

    @Test func aFailedLoadLeavesTheGameAsItWas() throws {
        let folder = try makeScratchFolder()
        try "not a transcript\n".write(toFile: folder + "/junk.txt", atomically: false, encoding: .utf8)
        let (played, _) = try play("a.txt", ["a.txt": "> roll 4\n> load junk.txt\n> roll 1\n"], in: folder)
        #expect(outputs(played) == [["roll Ann ⚃", "say total 4"],
                                    ["error: \(folder)/junk.txt:1: expected 'key: value' in the header (rules, players, seed, set), got 'not a transcript'"],
                                    ["roll Ann ⚀", "say total 5"]])
    }
}

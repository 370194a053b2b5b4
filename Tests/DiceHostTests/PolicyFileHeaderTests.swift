import DiceHost
import Foundation
import Testing

/// A policy module is known by its header line; modules written before it (known by
/// their first comment line) still play, and a module of the wrong kind is refused.
@Suite struct PolicyFileHeaderTests {
    @Test func theHeaderNamesTheKindAndTheVersion() {
        #expect(PolicyFileHeader.read("-- dicehost-policy: version=2 kind=best-play\n-- Best play for …") == PolicyFileHeader(version: 2, kind: .bestPlay))
        #expect(PolicyFileHeader.read("-- dicehost-policy: version=2 kind=equilibrium\r\nlocal key") == PolicyFileHeader(version: 2, kind: .equilibrium))
        #expect(PolicyFileHeader(kind: .equilibrium).line == "-- dicehost-policy: version=\(PolicyFileHeader.currentVersion) kind=equilibrium")
    }

    @Test func aModuleWrittenBeforeTheHeaderIsFormatOne() {
        let open = "-- Best play for Pig (examples/rules/pig.lua), written by `dicehost solve --policy`.\n-- Each seat's chance…"
        let secrets = "-- Best play for Hide (game.lua), written by `dicehost solve --policy`: an equilibrium over what each seat sees.\nlocal key"
        #expect(PolicyFileHeader.read(open) == PolicyFileHeader(version: 1, kind: .bestPlay))
        #expect(PolicyFileHeader.read(secrets) == PolicyFileHeader(version: 1, kind: .equilibrium))
    }

    @Test func aHandWrittenModuleHasNoHeader() {
        #expect(PolicyFileHeader.read("local M = {}\nfunction M.move(g, p) return 'roll' end\nreturn M\n") == nil)
        #expect(PolicyFileHeader.read("-- dicehost-policy: kind=best-play\n") == nil)
        #expect(PolicyFileHeader.read("") == nil)
    }

    @Test func aNewerFormatOrTheOtherKindIsRefusedWithTheReason() {
        let newer = PolicyFileHeader.read("-- dicehost-policy: version=99 kind=best-play\n")
        #expect(newer?.problem(playedAs: .bestPlay)?.contains("policy format 99") == true)
        let unknownKind = PolicyFileHeader.read("-- dicehost-policy: version=3 kind=mixed\n")
        #expect(unknownKind?.kind == nil && unknownKind?.problem(playedAs: .bestPlay) != nil)
        #expect(PolicyFileHeader(kind: .bestPlay).problem(playedAs: .equilibrium)?.contains("has secrets") == true)
        #expect(PolicyFileHeader(kind: .equilibrium).problem(playedAs: .bestPlay)?.contains("--open") == true)
        #expect(PolicyFileHeader(version: 1, kind: .bestPlay).problem(playedAs: .bestPlay) == nil)
    }

    func solvedPig() throws -> String {
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.params = [("target", "8")]
        o.memoryBytes = 256 << 20
        o.writesPolicy = true
        let module = try #require(try BestPlay.solve(rulesFile: "examples/rules/pig.lua", options: o).policyModule)
        #expect(module.hasPrefix("-- dicehost-policy: version=2 kind=best-play\n-- Best play for "))
        return module
    }

    func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("policy-header-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    @Test func anOldFormPolicyFilePlaysAsTheNewForm() throws {
        let dir = try folder()
        let module = try solvedPig()
        let old = module.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)[1]
        try module.write(toFile: dir + "/new.lua", atomically: true, encoding: .utf8)
        try String(old).write(toFile: dir + "/old.lua", atomically: true, encoding: .utf8)
        #expect(PolicyFileHeader.read(file: dir + "/old.lua") == PolicyFileHeader(version: 1, kind: .bestPlay))
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.params = [("target", "8")]
        let new = try BestPlay.versus(rulesFile: "examples/rules/pig.lua", policyFile: dir + "/new.lua", options: o)
        let played = try BestPlay.versus(rulesFile: "examples/rules/pig.lua", policyFile: dir + "/old.lua", options: o)
        #expect(played.policyEverywhere == new.policyEverywhere)
        #expect(played.policyInSeat == new.policyInSeat)
    }

    @Test func anEquilibriumModuleIsRefusedForAGameWithoutSecrets() throws {
        let dir = try folder()
        try "-- dicehost-policy: version=2 kind=equilibrium\nlocal M = {}\nfunction M.move(v, p) return nil end\nreturn M\n"
            .write(toFile: dir + "/eq.lua", atomically: true, encoding: .utf8)
        var o = BestPlay.Options()
        o.players = ["Ann", "Bob"]
        o.params = [("target", "8")]
        #expect {
            try BestPlay.versus(rulesFile: "examples/rules/pig.lua", policyFile: dir + "/eq.lua", options: o)
        } throws: { error in
            "\(error)".contains("eq.lua: holds an equilibrium of a game with secrets")
        }
    }
}

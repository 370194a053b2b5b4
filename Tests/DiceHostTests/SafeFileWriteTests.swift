@testable import DiceHost
import Foundation
import Testing

/// A fresh folder under the system's temporary folder: every attack below stays inside it.
func makeScratchFolder() throws -> String {
    let folder = NSTemporaryDirectory() + "dicehost-files-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}

let savedTranscript = "rules: ../pig.lua\nplayers: Ann\nseed: 1\n\nturn Ann\n"

/// `SafeFileWriter` and `AppendingLogFile`: only regular files, never the rules, never through a link.
@Suite struct SafeFileWriteTests {
    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    func leftoverTemporaryFiles(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".tmp-") }
    }

    @Test func writesANewFileAndReplacesATranscriptWholeLeavingNoTemporaryFile() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/game.txt"
        try SafeFileWriter().write(savedTranscript, to: path)
        #expect(contents(path) == savedTranscript)
        try SafeFileWriter().write(savedTranscript + "> roll\n", to: path)
        #expect(contents(path) == savedTranscript + "> roll\n")
        #expect(try leftoverTemporaryFiles(in: folder).isEmpty)
    }

    @Test func refusesAFIFOAFolderAndASymbolicLinkWithoutTouchingThem() throws {
        let folder = try makeScratchFolder()
        let fifo = folder + "/pipe", dir = folder + "/dir", link = folder + "/link", target = folder + "/target.txt"
        #expect(mkfifo(fifo, 0o600) == 0)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        try savedTranscript.write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        for (path, kind) in [(fifo, "a FIFO"), (dir, "a folder"), (link, "a symbolic link")] {
            let started = ContinuousClock.now
            #expect(throws: SafeFileWriter.WriteError(path: path, reason: "it is \(kind), not a regular file")) {
                try SafeFileWriter(force: true).write("x", to: path)
            }
            #expect(ContinuousClock.now - started < .seconds(6))
        }
        #expect(contents(target) == savedTranscript)  // the link was not followed
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(try leftoverTemporaryFiles(in: folder).isEmpty)
    }

    @Test func refusesTheRulesScriptAndAFileItRequiresEvenByAnotherName() throws {
        let folder = try makeScratchFolder()
        let rules = folder + "/rules.lua", module = folder + "/base.lua"
        try "return 1\n".write(toFile: rules, atomically: false, encoding: .utf8)
        try "return 2\n".write(toFile: module, atomically: false, encoding: .utf8)
        try FileManager.default.linkItem(atPath: rules, toPath: folder + "/hardlink.lua")
        let writer = SafeFileWriter(protectedPaths: [rules, module], force: true)
        for path in [rules, module, folder + "/hardlink.lua", folder + "/./rules.lua"] {
            #expect(throws: SafeFileWriter.WriteError(path: path, reason: "it is the rules script or a file it requires")) {
                try writer.write(savedTranscript, to: path)
            }
        }
        #expect(contents(rules) == "return 1\n" && contents(module) == "return 2\n")
    }

    @Test func refusesToReplaceAFileThatIsNotATranscriptUnlessForced() throws {
        let folder = try makeScratchFolder()
        for original in ["precious notes\n", "rules: x.lua\n", "\u{0}\u{1}binary"] {
            let path = folder + "/notes-\(original.count).txt"
            try original.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(throws: SafeFileWriter.WriteError(path: path, reason: "it exists and is not a transcript (save FILE --force replaces it)")) {
                try SafeFileWriter(forceHint: "save FILE --force").write(savedTranscript, to: path)
            }
            #expect(contents(path) == original)
            try SafeFileWriter(force: true).write(savedTranscript, to: path)
            #expect(contents(path) == savedTranscript)
        }
    }

    @Test func aFailedWriteKeepsTheOldFileAndRemovesTheTemporaryOne() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/game.txt"
        try savedTranscript.write(toFile: path, atomically: false, encoding: .utf8)
        for failure in [ENOSPC, EIO] {
            var writer = SafeFileWriter()
            writer.writeFunction = { _, _, _ in errno = failure; return -1 }
            #expect(throws: SafeFileWriter.WriteError(path: path, reason: String(cString: strerror(failure)))) {
                try writer.write(savedTranscript + "> roll\n", to: path)
            }
            #expect(contents(path) == savedTranscript)
            #expect(try leftoverTemporaryFiles(in: folder).isEmpty)
        }
    }

    @Test func aMissingFolderOrEmptyNameIsAClearError() throws {
        let folder = try makeScratchFolder()
        #expect(throws: SafeFileWriter.WriteError(path: folder + "/no/such.txt", reason: "no such folder \(folder)/no")) {
            try SafeFileWriter().write("x", to: folder + "/no/such.txt")
        }
        #expect(throws: SafeFileWriter.WriteError(path: "", reason: "the file name is empty")) { try SafeFileWriter().write("x", to: "") }
    }

    @Test func theLogRefusesLinksFIFOsFoldersAndTheRules() throws {
        let folder = try makeScratchFolder()
        let rules = folder + "/rules.lua", fifo = folder + "/pipe", link = folder + "/link.log"
        try "return 1\n".write(toFile: rules, atomically: false, encoding: .utf8)
        #expect(mkfifo(fifo, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder + "/elsewhere.log")
        let cases = [(fifo, "it is a FIFO, not a regular file"), (folder, "it is a folder, not a regular file"),
                     (link, "it is a symbolic link, not a regular file"), (rules, "it is the rules script or a file it requires")]
        for (path, reason) in cases {
            #expect(throws: SafeFileWriter.WriteError(path: path, reason: reason)) {
                _ = try AppendingLogFile(path: path, protectedPaths: [rules])
            }
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/elsewhere.log"))
        #expect(contents(rules) == "return 1\n")
    }

    @Test func theLogAppendsAndAFailedWriteWarnsOnceThenStops() throws {
        let folder = try makeScratchFolder()
        let path = folder + "/game.log"
        try "before\n".write(toFile: path, atomically: false, encoding: .utf8)
        let log = try AppendingLogFile(path: path, protectedPaths: [])
        #expect(log.append("one\n") == nil)
        #expect(contents(path) == "before\none\n")
        nonisolated(unsafe) var calls = 0
        log.writeFunction = { _, _, _ in calls += 1; errno = ENOSPC; return -1 }
        let warning = "warning: cannot write the log \(path): \(String(cString: strerror(ENOSPC))); logging stopped, the game goes on"
        #expect(log.append("two\n") == warning)
        #expect(log.append("three\n") == nil)
        #expect(calls == 1)
        #expect(log.failure == warning)
        #expect(contents(path) == "before\none\n")
    }
}

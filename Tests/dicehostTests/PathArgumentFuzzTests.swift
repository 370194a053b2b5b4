import Foundation
import Testing

/// Issue 35, item 1: every argument that names a file or folder, given nasty paths
/// (empty, ".", "..", missing parents, trailing slashes, very long, unicode, a file used
/// as a folder, an option-looking name). Each run must end with a status the design
/// promises (0 success, 1 failure, 2 bad usage, 3 rules that do not load) and, when it
/// fails, a message; nothing may be written outside the temporary folder.
@Suite struct PathArgumentFuzzTests {
    /// A temporary folder: `work` is the current folder of every run, with a game, a
    /// file to use as a folder, a log and a test to read; everything else is made inside.
    struct Scene {
        let root: String
        var work: String { root + "/work" }

        init() throws {
            var template = Array((NSTemporaryDirectory() + "dicehost-paths-XXXXXX").utf8CString)
            let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
                guard let base = buffer.baseAddress else { return false }
                return mkdtemp(base) != nil
            }
            guard made else { throw CocoaError(.fileWriteUnknown) }
            root = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
            let game = try String(contentsOf: packageRoot.appendingPathComponent("examples/rules/pig.lua"), encoding: .utf8)
            try game.write(toFile: root + "/work/game.lua", atomically: true, encoding: .utf8)
            try "not a folder\n".write(toFile: root + "/work/afile", atomically: true, encoding: .utf8)
            // A log and a test to read, recorded by the binary itself.
            let played = try run(["play", "game.lua", "--players", "Ann,Bob", "--seed", "1", "--log", "game.jsonl", "--record", "first.txt"],
                                 input: "roll 3\nroll 4\n")
            guard played.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        }

        /// Runs the binary in `work`: its exit status (nil if a signal ended it) and output.
        func run(_ arguments: [String], input: String = "") throws -> (status: Int32?, stdout: String, stderr: String) {
            let process = Process()
            process.executableURL = packageRoot.appendingPathComponent(".build/debug/dicehost")
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: work)
            let out = Pipe(), err = Pipe(), inPipe = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = inPipe
            try process.run()
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try inPipe.fileHandleForWriting.close()
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationReason == .exit ? process.terminationStatus : nil,
                    String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
        }

        /// Every path under the scene, for the record.
        func everything() -> Set<String> {
            Set((FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? [])
        }
    }

    /// Paths relative to `work` (or absolute inside the scene, `{root}`), none leading
    /// above the scene's folder.
    static let nastyPaths: [String] = [
        "", ".", "./", "..", "../", "a/b/c", "a/b/c/", "x//y///", "./a/../b", "afile", "afile/x", "afile/x/y/",
        String(repeating: "n", count: 300),                         // one name past NAME_MAX
        String(repeating: "d/", count: 2100),                       // past PATH_MAX, missing parents
        "dé/🎲/名前", " ", "-", "-x", "--", "{root}/work//", "{root}/work/q/",
    ]

    /// Each command with a path argument; "{}" is where the nasty path goes. "/" is given
    /// only where it names a file (a folder there is refused); `new --folder /` and `test /`
    /// would rightly write into, or read through, the whole file system.
    static let commands: [(arguments: [String], input: String, takesRoot: Bool)] = [
        (["new", "fz", "--folder={}"], "", false),
        (["play", "game.lua", "--players", "Ann,Bob", "--record={}"], "roll 3\n", true),
        (["play", "game.lua", "--players", "Ann,Bob", "--log={}"], "roll 3\n", true),
        (["play", "game.lua", "--players", "Ann,Bob"], "roll 3\nsave {}\n", true),
        (["play", "game.lua", "--players", "Ann,Bob"], "load {}\n", true),
        (["sim", "game.lua", "--games", "2", "--csv={}"], "", true),
        (["test", "{}"], "", false),
        (["replay", "{}"], "", true),
        (["replay", "game.jsonl", "--rules={}"], "", true),
        (["check", "{}"], "", true),
        (["play", "{}"], "", true),
    ]

    @Test(arguments: 0..<commands.count) func nastyPathsEndWithAPromisedStatusAndWriteOnlyInside(_ index: Int) throws {
        let scene = try Scene()
        defer { try? FileManager.default.removeItem(atPath: scene.root) }
        let command = Self.commands[index]
        let outsideBefore = Self.outsideListing(of: scene)
        for raw in Self.nastyPaths + (command.takesRoot ? ["/"] : []) {
            let path = raw.replacingOccurrences(of: "{root}", with: scene.root)
            let arguments = command.arguments.map { $0.replacingOccurrences(of: "{}", with: path) }
            let input = command.input.replacingOccurrences(of: "{}", with: path)
            let result = try scene.run(arguments, input: input)
            let shown = "\(command.arguments) with \(raw.prefix(40).debugDescription): \(result.stderr.prefix(300))"
            #expect(result.status.map { (0...3).contains($0) } == true, "crashed or odd status \(String(describing: result.status)): \(shown)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Program crashed"), "\(shown)")
            if result.status != 0 {  // a failed rule test reports on stdout, anything else on stderr
                #expect(!(result.stderr + result.stdout).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "no message: \(shown)")
            }
        }
        #expect(Self.outsideListing(of: scene) == outsideBefore, "\(command.arguments) wrote outside \(scene.root)")
    }

    /// `new --folder a/b/c` crashed (SIGILL) when neither the folder nor its parents existed.
    @Test func newMakesMissingParentFolders() throws {
        let scene = try Scene()
        defer { try? FileManager.default.removeItem(atPath: scene.root) }
        let result = try scene.run(["new", "dice-duel", "--folder", "a/b/c/"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("created a/b/c/dice-duel.lua and a/b/c/tests/dice-duel/first-turns.txt"), "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: scene.work + "/a/b/c/tests/dice-duel/first-turns.txt"))
        let tested = try scene.run(["test", "a/b/c/tests/dice-duel"])
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
    }

    @Test func newNamesTheFileThatStandsInForAFolder() throws {
        let scene = try Scene()
        defer { try? FileManager.default.removeItem(atPath: scene.root) }
        let inside = try scene.run(["new", "duel", "--folder", "afile/x/y"])
        #expect(inside.status == 2)
        #expect(inside.stderr.contains("--folder afile/x/y: afile is a file, not a folder"), "\(inside.stderr)")
        for empty in [["new", "duel", "--folder="], ["new", "duel", "--folder", ""]] {
            let result = try scene.run(empty)
            #expect(result.status == 2)
            #expect(result.stderr.contains("--folder"), "\(result.stderr)")
        }
        let long = try scene.run(["new", "duel", "--folder", String(repeating: "d/", count: 2100)])
        #expect(long.status == 2)
        #expect(long.stderr.contains("the path is 4199 bytes long, more than the system takes (4095)") && long.stderr.count < 300, "\(long.stderr.prefix(300))")
        // Nothing was left behind by either.
        #expect(!scene.everything().contains { $0.contains("duel") })
    }

    /// What the runs could have reached outside the scene: the scene's parent folder,
    /// the package's folder and the file system's root (listed, not searched).
    static func outsideListing(of scene: Scene) -> [String: Set<String>] {
        var listing: [String: Set<String>] = [:]
        for folder in [(scene.root as NSString).deletingLastPathComponent, packageRoot.path, "/"] {
            // Other tests make their own temporary folders meanwhile: only names these runs could write count.
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { name in
                ["fz", "tests", "game", "first", "q", "x", "a", "b", "n", "d", "-"].contains { name.hasPrefix($0) } && !name.hasPrefix("dicehost-")
            }
            listing[folder] = Set(names)
        }
        return listing
    }
}

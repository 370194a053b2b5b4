import ArgumentParser
import DiceHost
import Foundation
import SystemPackage

extension DiceHostCommand {
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a new game: a working rule script with a bot, and a rule test that passes.",
            discussion: """
                Writes FOLDER/NAME.lua (a small dice race to edit: setup, turn, roll, an action, \
                a status line and a bot) and FOLDER/tests/NAME/first-turns.txt, recorded from the \
                script, so `dicehost test` passes at once (with no path it finds rules/tests and \
                ./tests). The test also fails if a rule hook fails along it (check: no-rule-error). Existing \
                files are never replaced.

                Then: dicehost play FILE --watch (edit and save: the game reloads), dicehost test, \
                dicehost check FILE, dicehost sim FILE; docs/tutorial.md walks through a first game.
                """
        )

        @Argument(help: "The game's name: letters, digits, '-' and '_' (e.g. dice-duel).")
        var name: String

        @Option(help: "The folder to write into (default: rules/ if there is one, else the current folder).")
        var folder: String?

        func run() throws {
            var isDirectory: ObjCBool = false
            let given = self.folder ?? (FileManager.default.fileExists(atPath: "rules", isDirectory: &isDirectory) && isDirectory.boolValue ? "rules" : ".")
            // The title (the rules' name) is made of the name's words: it needs a letter or digit.
            guard !name.isEmpty, name.count <= 40, name.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }),
                  name.contains(where: { $0.isLetter || $0.isNumber }) else {
                printError("dicehost: new: the name must be 1 to 40 letters, digits, '-' or '_', with a letter or digit, got '\(GameEvent.oneLine(name))'")
                throw ExitStatus.usage
            }
            guard !given.isEmpty else {
                printError("dicehost: new: --folder expects a folder (e.g. rules or .), got an empty path")
                throw ExitStatus.usage
            }
            // "a/b/", "./a" and "a/../b" are the folders they name; "." is the current one
            // (an empty path: the files are then named without a leading "./").
            let folder = FilePath(given).lexicallyNormalized()
            if let problem = Self.folderProblem(folder) {
                printError("dicehost: new: --folder \(Self.shortened(GameEvent.oneLine(given))): \(problem)")
                throw ExitStatus.usage
            }
            // The name is letters, digits, '-' and '_' (checked above): one component each.
            let scriptPath = folder.appending("\(name).lua")
            let testFolderPath = folder.appending("tests").appending(name)
            let script = scriptPath.string, testFolder = testFolderPath.string
            let test = testFolderPath.appending("first-turns.txt").string
            for path in [script, test] where FileManager.default.fileExists(atPath: path) {
                printError("dicehost: new: \(path) exists already (pick another name, or move it away)")
                throw ExitStatus.usage
            }
            // What this run creates, removed again if it cannot finish: no empty folder left.
            let created = Self.missingFolders(up: testFolderPath).map(\.string) + [script]
            func undo() { for path in created.reversed() { try? FileManager.default.removeItem(atPath: path) } }
            let writer = SafeFileWriter()
            do {
                do { try FileManager.default.createDirectory(atPath: testFolder, withIntermediateDirectories: true) } catch {
                    throw FileProblem(description: "cannot create the folder \(testFolder): \(Self.reason(error))")
                }
                try writer.write(Self.template(name: name), to: script)
                let game = try Game(rulesFile: script, players: ["Ann", "Bob"], seed: 1)
                let session = GameSession(game: game)
                for line in ["roll 4", "roll 5", "hold", "roll 1", "roll 6"] { _ = session.run(line) }
                let text = session.transcript(for: test).replacingOccurrences(
                    of: "# Saved with dicehost play; `load` continues it, `dicehost test` checks it.",
                    with: "# Written by dicehost new: holding banks the turn total, a 1 loses it.\n# Re-record after changing the rules: dicehost test --update \(test)\n# check: no-rule-error")
                try writer.write(text, to: test)
            } catch let error as FileProblem {
                undo()
                printError("dicehost: new: \(error)")
                throw ExitStatus.usage
            } catch let error as SafeFileWriter.WriteError {
                undo()
                printError("dicehost: new: \(error)")
                throw ExitStatus.usage
            } catch {
                undo()
                printError("dicehost: new: \(error)")
                throw ExitStatus.failure
            }
            print("created \(script) and \(test)")
            print("try: dicehost play \(script) --watch    (or --auto: the bot plays)")
            print("     dicehost test \(testFolder)")
        }

        /// Why `folder` cannot take the new files (checked before anything is written):
        /// the deepest folder on its way that exists must be a folder we may write in.
        /// `folder` is lexically normalized; empty is the current folder. Walked from the
        /// top down, once (a path of thousands of components costs no more than its length).
        static func folderProblem(_ folder: FilePath) -> String? {
            let length = folder.string.utf8.count
            guard length < Int(PATH_MAX) else {
                return "the path is \(length) bytes long, more than the system takes (\(Int(PATH_MAX) - 1))"
            }
            var existing = FilePath(root: folder.root)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: shown(existing), isDirectory: &isDirectory) else {
                return "cannot find \(shown(existing)): \(String(cString: strerror(ENOENT)))"
            }
            for component in folder.components where isDirectory.boolValue {
                let next = existing.appending(component)
                var nextIsDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: next.string, isDirectory: &nextIsDirectory) else { break }
                existing = next
                isDirectory = nextIsDirectory
            }
            let place = existing == folder ? "it" : shown(existing)
            guard isDirectory.boolValue else {
                return existing == folder ? "it is a file, not a folder" : "\(place) is a file, not a folder"
            }
            guard access(shown(existing), W_OK | X_OK) == 0 else {
                return "cannot write into \(place): \(String(cString: strerror(errno)))"
            }
            return nil
        }

        /// A path for a message: at most 80 characters ("…" and its length past that).
        static func shortened(_ text: String) -> String {
            text.count <= 80 ? text : text.prefix(60) + "… (\(text.utf8.count) bytes)"
        }

        /// A path as it is named in messages and system calls ("." for the current folder).
        static func shown(_ path: FilePath) -> String { path.isEmpty ? "." : path.string }

        /// The folders on the way to `path` (itself included) that do not exist yet, outermost first.
        static func missingFolders(up path: FilePath) -> [FilePath] {
            var missing: [FilePath] = [], current = FilePath(root: path.root)
            for component in path.components {
                current = current.appending(component)
                if !missing.isEmpty || !FileManager.default.fileExists(atPath: current.string) { missing.append(current) }
            }
            return missing
        }

        struct FileProblem: Error, CustomStringConvertible { let description: String }

        static func reason(_ error: Error) -> String {
            if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
                return String(cString: strerror(Int32(posix.code)))
            }
            return (error as NSError).localizedDescription
        }

        static func template(name: String) -> String {
            let title = name.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
            return String(decoding: PackageResources.new_game_lua, as: UTF8.self)
                .replacingOccurrences(of: "{{TITLE}}", with: title)
                .replacingOccurrences(of: "{{NAME}}", with: name)
        }
    }
}

import ArgumentParser
import DiceHost
import Foundation

extension DiceHostCommand {
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a new game: a working rule script with a bot, and a rule test that passes.",
            discussion: """
                Writes FOLDER/NAME.lua (a small dice race to edit: setup, turn, roll, an action,
                a status line and a bot) and FOLDER/tests/NAME/first-turns.txt, recorded from the
                script, so `dicehost test` passes at once (with no path it finds rules/tests and
                ./tests). Existing files are never replaced.
                """
        )

        @Argument(help: "The game's name: letters, digits, '-' and '_' (e.g. dice-duel).")
        var name: String

        @Option(help: "The folder to write into (default: rules/ if there is one, else the current folder).")
        var folder: String?

        func run() throws {
            var isDirectory: ObjCBool = false
            let folder = self.folder ?? (FileManager.default.fileExists(atPath: "rules", isDirectory: &isDirectory) && isDirectory.boolValue ? "rules" : ".")
            // The title (the rules' name) is made of the name's words: it needs a letter or digit.
            guard !name.isEmpty, name.count <= 40, name.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }),
                  name.contains(where: { $0.isLetter || $0.isNumber }) else {
                printError("dicehost: new: the name must be 1 to 40 letters, digits, '-' or '_', with a letter or digit, got '\(GameEvent.oneLine(name))'")
                throw ExitStatus.usage
            }
            if let problem = Self.folderProblem(folder) {
                printError("dicehost: new: --folder \(GameEvent.oneLine(folder)): \(problem)")
                throw ExitStatus.usage
            }
            let script = folder == "." ? "\(name).lua" : "\(folder)/\(name).lua"
            let testFolder = (folder == "." ? "" : folder + "/") + "tests/\(name)"
            let test = testFolder + "/first-turns.txt"
            for path in [script, test] where FileManager.default.fileExists(atPath: path) {
                printError("dicehost: new: \(path) exists already (pick another name, or move it away)")
                throw ExitStatus.usage
            }
            // What this run creates, removed again if it cannot finish: no empty folder left.
            let created = Self.missingFolders(up: testFolder) + [script]
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
                    with: "# Written by dicehost new: holding banks the turn total, a 1 loses it.\n# Re-record after changing the rules: dicehost test --update \(test)")
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

        /// Why `folder` cannot take the new files (checked before anything is written).
        static func folderProblem(_ folder: String) -> String? {
            var isDirectory: ObjCBool = false
            var existing = folder
            while !FileManager.default.fileExists(atPath: existing, isDirectory: &isDirectory) {
                let parent = (existing as NSString).deletingLastPathComponent
                guard !parent.isEmpty, parent != existing else { existing = "."; _ = FileManager.default.fileExists(atPath: ".", isDirectory: &isDirectory); break }
                existing = parent
            }
            guard isDirectory.boolValue else {
                return existing == folder ? "it is a file, not a folder" : "\(existing) is a file, not a folder"
            }
            guard access(existing, W_OK | X_OK) == 0 else {
                return "cannot write into \(existing == folder ? "it" : existing): \(String(cString: strerror(errno)))"
            }
            return nil
        }

        /// The folders on the way to `path` (itself included) that do not exist yet, outermost first.
        static func missingFolders(up path: String) -> [String] {
            var missing: [String] = [], current = path
            while !current.isEmpty, current != "/", current != ".", !FileManager.default.fileExists(atPath: current) {
                missing.insert(current, at: 0)
                current = (current as NSString).deletingLastPathComponent
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

import DiceHost
import Foundation

/// The rule scripts a server offers: the `.lua` files directly in its rules folder,
/// named by file name only (a client cannot name a path outside the folder).
public struct RuleCatalog: Sendable {
    public struct Entry: Sendable {
        public var file: String
        public var path: String
        public var rules: RuleSet
    }

    public let directory: String
    public private(set) var entries: [Entry] = []
    /// Files that did not load, with the reason (shown by `dicehost serve` at start).
    public private(set) var problems: [(file: String, error: String)] = []

    public init(directory: String) throws {
        self.directory = directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CatalogError(message: "\(directory) is not a folder of rule scripts")
        }
        let files = (try FileManager.default.contentsOfDirectory(atPath: directory)).filter { $0.hasSuffix(".lua") }.sorted()
        for file in files {
            let path = (directory as NSString).appendingPathComponent(file)
            do { entries.append(Entry(file: file, path: path, rules: try Game.check(rulesFile: path))) } catch {
                problems.append((file, "\(error)"))
            }
        }
    }

    public func entry(_ file: String) -> Entry? { entries.first { $0.file == file } }

    public struct CatalogError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The `rules` list of the protocol: what a lobby offers.
    var json: String {
        ServerMessage.array(entries.map { entry in
            .written(ServerMessage.object([
                ("file", .string(entry.file)), ("name", .string(entry.rules.name)),
                ("minPlayers", .integer(entry.rules.minPlayers)), ("maxPlayers", .integer(entry.rules.maxPlayers)),
                ("dice", .string(entry.rules.dice.text)), ("actions", .written(ServerMessage.array(entry.rules.actions.map { .string($0) }))),
                ("params", .written(ServerMessage.object(entry.rules.params.map { ($0.name, .string($0.value.description)) }))),
                ("paramInfo", .written(ServerMessage.object(Self.paramInfo(entry.rules)))),
                ("designerActions", .written(ServerMessage.array(entry.rules.designerActions.sorted().map { .string($0) }))),
            ]))
        })
    }

    /// Each param's label, description and kind (`param_info`, or the plain one from its
    /// type), so a lobby draws a checkbox, a menu or a slider in the game's words.
    static func paramInfo(_ rules: RuleSet) -> [(key: String, value: ServerMessage.Value)] {
        rules.params.compactMap { param -> (key: String, value: ServerMessage.Value)? in
            guard let info = rules.info(of: param.name) else { return nil }
            var fields: [(key: String, value: ServerMessage.Value)] = [("label", .string(info.label))]
            if let description = info.description { fields.append(("description", .string(description))) }
            switch info.kind {
            case .toggle: fields.append(("kind", .string("toggle")))
            case .text: fields.append(("kind", .string("text")))
            case .choice(let values):
                fields += [("kind", .string("choice")), ("choices", .written(ServerMessage.array(values.map { .string($0.description) })))]
            case .range(let low, let high, let step):
                // The number as the rules wrote it (`0.5`, `10`), not as a Double prints.
                fields += [("kind", .string("range")), ("min", .written(RuleSet.number(low))),
                           ("max", .written(RuleSet.number(high))), ("step", .written(RuleSet.number(step)))]
            }
            if info.botOnly { fields.append(("bot", .bool(true))) }
            return (param.name, .written(ServerMessage.object(fields)))
        }
    }
}

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
        "[" + entries.map { entry in
            let params = entry.rules.params.map { "\($0.name.jsonQuoted):\($0.value.description.jsonQuoted)" }.joined(separator: ",")
            return "{\"file\":\(entry.file.jsonQuoted),\"name\":\(entry.rules.name.jsonQuoted),\"minPlayers\":\(entry.rules.minPlayers),"
                + "\"maxPlayers\":\(entry.rules.maxPlayers),\"dice\":\(entry.rules.dice.text.jsonQuoted),"
                + "\"actions\":[\(entry.rules.actions.map(\.jsonQuoted).joined(separator: ","))],\"params\":{\(params)},"
                + "\"paramInfo\":{\(Self.paramInfoJSON(entry.rules))},"
                + "\"designerActions\":[\(entry.rules.designerActions.sorted().map(\.jsonQuoted).joined(separator: ","))]}"
        }.joined(separator: ",") + "]"
    }

    /// Each param's label, description and kind (`param_info`, or the plain one from its
    /// type), so a lobby draws a checkbox, a menu or a slider in the game's words.
    static func paramInfoJSON(_ rules: RuleSet) -> String {
        rules.params.compactMap { param -> String? in
            guard let info = rules.info(of: param.name) else { return nil }
            var fields = ["\"label\":\(info.label.jsonQuoted)"]
            if let description = info.description { fields.append("\"description\":\(description.jsonQuoted)") }
            switch info.kind {
            case .toggle: fields.append("\"kind\":\"toggle\"")
            case .text: fields.append("\"kind\":\"text\"")
            case .choice(let values):
                fields.append("\"kind\":\"choice\",\"choices\":[\(values.map(\.description.jsonQuoted).joined(separator: ","))]")
            case .range(let low, let high, let step):
                fields.append("\"kind\":\"range\",\"min\":\(RuleSet.number(low)),\"max\":\(RuleSet.number(high)),\"step\":\(RuleSet.number(step))")
            }
            if info.botOnly { fields.append("\"bot\":true") }
            return "\(param.name.jsonQuoted):{\(fields.joined(separator: ","))}"
        }.joined(separator: ",")
    }
}

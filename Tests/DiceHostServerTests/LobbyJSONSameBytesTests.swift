import DiceHost
@testable import DiceHostServer
import Foundation
import Testing

/// The lobby's JSON (the `rules` list, a room's summary) is written by the server's one
/// JSON writer (`ServerMessage.object`, `.array`), byte for byte what the hand-written text was: the
/// reference here is that text, kept as the slow, obvious implementation.
@Suite struct LobbyJSONSameBytesTests {
    static func quoted(_ text: String) -> String { GameEvent.quote(text) }

    /// The catalog's list as it was written by hand.
    static func handWritten(_ catalog: RuleCatalog) -> String {
        func paramInfo(_ rules: RuleSet) -> String {
            rules.params.compactMap { param -> String? in
                guard let info = rules.info(of: param.name) else { return nil }
                var fields = ["\"label\":\(quoted(info.label))"]
                if let description = info.description { fields.append("\"description\":\(quoted(description))") }
                switch info.kind {
                case .toggle: fields.append("\"kind\":\"toggle\"")
                case .text: fields.append("\"kind\":\"text\"")
                case .choice(let values):
                    fields.append("\"kind\":\"choice\",\"choices\":[\(values.map { quoted($0.description) }.joined(separator: ","))]")
                case .range(let low, let high, let step):
                    fields.append("\"kind\":\"range\",\"min\":\(RuleSet.number(low)),\"max\":\(RuleSet.number(high)),\"step\":\(RuleSet.number(step))")
                }
                if info.botOnly { fields.append("\"bot\":true") }
                return "\(quoted(param.name)):{\(fields.joined(separator: ","))}"
            }.joined(separator: ",")
        }
        return "[" + catalog.entries.map { entry in
            let params = entry.rules.params.map { "\(quoted($0.name)):\(quoted($0.value.description))" }.joined(separator: ",")
            return "{\"file\":\(quoted(entry.file)),\"name\":\(quoted(entry.rules.name)),\"minPlayers\":\(entry.rules.minPlayers),"
                + "\"maxPlayers\":\(entry.rules.maxPlayers),\"dice\":\(quoted(entry.rules.dice.text)),"
                + "\"actions\":[\(entry.rules.actions.map(quoted).joined(separator: ","))],\"params\":{\(params)},"
                + "\"paramInfo\":{\(paramInfo(entry.rules))},"
                + "\"designerActions\":[\(entry.rules.designerActions.sorted().map(quoted).joined(separator: ","))]}"
        }.joined(separator: ",") + "]"
    }

    @Test func theRulesListIsTheSameBytesAsWrittenByHand() throws {
        for directory in [TestServer.repositoryRules, "examples/rules"] {
            let catalog = try RuleCatalog(directory: directory)
            #expect(catalog.entries.count >= 3, "\(directory)")
            #expect(catalog.json == Self.handWritten(catalog), "\(directory)")
        }
        // Ranges, choices, descriptions and bot-only knobs are all in the shipped games.
        let json = try RuleCatalog(directory: TestServer.repositoryRules).json
        for field in ["\"kind\":\"range\"", "\"kind\":\"choice\"", "\"description\":", "\"bot\":true"] { #expect(json.contains(field), "\(field)") }
    }

    @Test func aStoredRoomsSummaryIsTheSameBytesAsWrittenByHand() {
        let names = ["Ann", "Bö \"B\"", "C\\d", "e\u{1}f", "</script>"]
        for started in [false, true] {
            let stored = StoredRoomSummary(id: "abc234", rulesFile: "pig.lua", seatCount: 3, players: names, started: started)
            let handWritten = "{\"room\":\(Self.quoted(stored.id)),\"rules\":\(Self.quoted(stored.rulesFile)),\"name\":\(Self.quoted("Pig \"x\"")),\"seats\":\(stored.seatCount),"
                + "\"players\":[\(stored.players.map(Self.quoted).joined(separator: ","))],\"phase\":\"\(stored.started ? "playing" : "waiting")\"}"
            #expect(Room.summaryJSON(stored, name: "Pig \"x\"") == handWritten)
        }
        let empty = StoredRoomSummary(id: "r", rulesFile: "f.lua", seatCount: 2, players: [], started: false)
        #expect(Room.summaryJSON(empty, name: "F") == #"{"room":"r","rules":"f.lua","name":"F","seats":2,"players":[],"phase":"waiting"}"#)
    }

    @Test func nestedFieldsKeepTheirOrder() {
        let text = ServerMessage.object([("z", .integer(1)), ("a", .written(ServerMessage.array([.string("x"), .written(ServerMessage.object([])), .written(ServerMessage.array([]))]))), ("m", .written("0.5"))])
        #expect(text == #"{"z":1,"a":["x",{},[]],"m":0.5}"#)
    }
}

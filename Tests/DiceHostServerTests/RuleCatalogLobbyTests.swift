@testable import DiceHostServer
import Foundation
import Testing

/// The lobby's list of games (`rules` in hello) speaks each game's words: every param's
/// label and kind, the bots' knobs marked, the designer's actions named.
@Suite struct RuleCatalogLobbyTests {
    static func games() throws -> [String: [String: Any]] {
        let catalog = try RuleCatalog(directory: TestServer.repositoryRules)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(catalog.json.utf8)) as? [[String: Any]])
        var byFile: [String: [String: Any]] = [:]
        for game in list { if let file = game["file"] as? String { byFile[file] = game } }
        return byFile
    }

    @Test func eachParamHasALabelAndAKindForTheLobby() throws {
        let liars = try #require(try Self.games()["liars-dice.lua"])
        let info = try #require(liars["paramInfo"] as? [String: [String: Any]])
        #expect(info["ones_wild"]?["kind"] as? String == "toggle")
        #expect(info["ones_wild"]?["label"] as? String == "Ones are wild")
        #expect(info["start_dice"]?["kind"] as? String == "range")
        #expect(info["start_dice"]?["min"] as? Int == 1 && info["start_dice"]?["max"] as? Int == 10)
        #expect(info["bluff"]?["bot"] as? Bool == true)
        #expect(liars["designerActions"] as? [String] == [])
    }

    @Test func snapsShowIsTheDesignersAction() throws {
        #expect(try Self.games()["snap.lua"]?["designerActions"] as? [String] == ["show"])
    }
}

import DiceHost
import Foundation
import Testing

/// `param_info` and `designer_actions`: how a lobby offers a game's params in its words,
/// and which actions are the designer's.
@Suite struct ParamInfoTests {
    static func rules(_ fields: String, params: String = "target = 25, wild = true, mode = \"short\", bluff = 0.2") -> String {
        """
        local r = rules { name = "P", players = {1, 2}, params = { \(params) }, \(fields) }
        function r.roll(g, p, r) end
        r.actions = { show = function(g, p) end, bid = function(g, p) end }
        return r
        """
    }

    @Test func declaredParamsGetTheirLabelsAndKinds() throws {
        let game = try makeGame(Self.rules("""
            param_info = {
              target = {label = "Target score", description = "first to reach it wins", min = 10, max = 100, step = 5},
              wild = {label = "Ones are wild"},
              mode = {label = "Length", choices = {"short", "long"}},
              bluff = {label = "Bot bluffing", bot = true},
            },
            designer_actions = {"show"}
            """))
        let rules = game.rules
        #expect(rules.info(of: "target") == .init(label: "Target score", description: "first to reach it wins",
                                                  kind: .range(min: 10, max: 100, step: 5), botOnly: false))
        #expect(rules.info(of: "wild")?.kind == .toggle)
        #expect(rules.info(of: "mode")?.kind == .choice([.string("short"), .string("long")]))
        #expect(rules.info(of: "bluff")?.botOnly == true)
        #expect(rules.designerActions == ["show"])
        #expect(rules.warnings.isEmpty, "param_info and designer_actions are known fields")
    }

    @Test func rulesWithoutParamInfoOfferEachParamByName() throws {
        let rules = try makeGame(Self.rules("")).rules
        #expect(rules.info(of: "target") == .init(label: "target", description: nil, kind: .text, botOnly: false))
        #expect(rules.info(of: "wild")?.kind == .toggle)
        #expect(rules.designerActions.isEmpty)
    }

    @Test(arguments: [
        ("param_info = { nope = {label = \"x\"} }", "param_info must describe declared params"),
        ("param_info = { target = {label = \"x\", min = 30, max = 100} }", "param_info.target: the default 25 is outside min 30 .. max 100"),
        ("param_info = { wild = {min = 1, max = 2} }", "param_info.wild: an on/off param takes no min, max, step or choices"),
        ("param_info = { mode = {choices = {\"long\"}} }", "param_info.mode.choices must include the default short"),
        ("param_info = { target = {lable = \"x\"} }", "param_info.target has an unknown field lable"),
        ("designer_actions = {\"shw\"}", "designer_actions must list action names"),
    ])
    func aWrongDescriptionIsAnErrorNamingTheParam(_ fields: String, _ expected: String) throws {
        do {
            _ = try makeGame(Self.rules(fields))
            Issue.record("loaded: \(fields)")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }

    @Test func everyShippedGameDescribesItsParams() throws {
        for name in ["craps", "labyrinth", "liars-dice", "mia", "race", "race-doubles", "snap"] {
            let rules = try Game.check(rulesFile: "rules/\(name).lua")
            for param in rules.params where param.name != "dice" {
                #expect(rules.paramInfo[param.name] != nil || { if case .boolean = param.value { return true } else { return false } }(),
                        "\(name): \(param.name) has no label")
            }
        }
        #expect(try Game.check(rulesFile: "rules/snap.lua").designerActions == ["show"])
        #expect(try Game.check(rulesFile: "rules/liars-dice.lua").info(of: "bluff")?.botOnly == true)
    }
}

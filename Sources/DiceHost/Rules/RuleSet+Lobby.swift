import Lua

/// What a lobby needs to offer a game in its own words: a label, a description and a kind
/// for each param (`param_info`), and the actions that are the designer's, not the
/// players' (`designer_actions`). Both optional: a script without them keeps working, and
/// a front end then shows the param's name and a box for its value.
extension RuleSet {
    /// How a param is set: on/off, one of a few values, a number in a range, or typed.
    public enum ParamKind: Equatable, Sendable {
        case toggle
        case choice([Param])
        case range(min: Double, max: Double, step: Double)
        case text
    }

    /// `param_info = { target = {label = "Target score", description = "...", min = 10, max = 100, step = 5} }`.
    public struct ParamInfo: Equatable, Sendable {
        public var label: String
        public var description: String?
        public var kind: ParamKind
        /// `bot = true`: a knob of the bots (how often they bluff), not of the game: a
        /// lobby does not offer it.
        public var botOnly: Bool

        public init(label: String, description: String?, kind: ParamKind, botOnly: Bool) {
            self.label = label
            self.description = description
            self.kind = kind
            self.botOnly = botOnly
        }
    }

    /// The param's info as declared, or the plain one (its name, a kind from its type).
    public func info(of param: String) -> ParamInfo? {
        guard let value = self.param(param) else { return nil }
        if let declared = paramInfo[param] { return declared }
        if case .boolean = value { return ParamInfo(label: param, description: nil, kind: .toggle, botOnly: false) }
        return ParamInfo(label: param, description: nil, kind: .text, botOnly: false)
    }

    static let lobbyFields = ["param_info", "designer_actions"]

    /// A number of a range as a person writes it: 10, not 10.0.
    public static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : LuaValue.format(d)
    }

    /// Reads `param_info` and `designer_actions` (after the actions are known).
    mutating func readLobbyFields(from table: LuaRef, in lua: LuaState) throws {
        func invalid(_ message: String) -> GameError { GameError.invalidRules(message, location: location) }
        designerActions = []
        switch lua.get(table, "designer_actions") {
        case .nil: break
        case .table(let t):
            for value in lua.array(t).prefix(64) {
                guard case .string(let name) = value, actions.contains(name) else {
                    throw invalid("designer_actions must list action names (\(actions.joined(separator: ", "))), got \(value.description.prefix(40))")
                }
                designerActions.insert(name)
            }
        case let other:
            throw invalid("designer_actions must be a list of action names, e.g. {\"show\"}, got \(other.typeName)")
        }
        paramInfo = [:]
        switch lua.get(table, "param_info") {
        case .nil: return
        case .table(let t):
            for (key, value) in lua.entries(t).prefix(64) {
                guard case .string(let name) = key, let param = param(name) else {
                    throw invalid("param_info must describe declared params (\(params.map(\.name).joined(separator: ", "))), got \(key.description.prefix(40))")
                }
                guard case .table(let fields) = value else {
                    throw invalid("param_info.\(name) must be a table like {label = \"Target score\", min = 10, max = 100}, got \(value.typeName)")
                }
                paramInfo[name] = try Self.paramInfo(name, param, fields, lua, invalid)
            }
        case let other:
            throw invalid("param_info must be a table of param descriptions, e.g. { target = {label = \"Target score\"} }, got \(other.typeName)")
        }
    }

    private static func paramInfo(_ name: String, _ param: Param, _ fields: LuaRef, _ lua: LuaState,
                                  _ invalid: (String) -> GameError) throws -> ParamInfo {
        let known: Set<String> = ["label", "description", "min", "max", "step", "choices", "bot"]
        for (key, _) in lua.entries(fields) {
            guard case .string(let field) = key, known.contains(field) else {
                throw invalid("param_info.\(name) has an unknown field \(key.description.prefix(40)) (it knows \(known.sorted().joined(separator: ", ")))")
            }
        }
        func text(_ field: String, limit: Int) throws -> String? {
            switch lua.get(fields, .string(field)) {
            case .nil: return nil
            case .string(let s) where !s.isEmpty && s.utf8.count <= limit: return s
            case let other:
                throw invalid("param_info.\(name).\(field) must be a text of 1 to \(limit) bytes, got \(other.typeName == "string" ? "one of \(other.description.utf8.count)" : other.typeName)")
            }
        }
        func number(_ field: String) throws -> Double? {
            let value = lua.get(fields, .string(field))
            if value.isNil { return nil }
            guard let d = value.doubleValue, d.isFinite else { throw invalid("param_info.\(name).\(field) must be a number, got \(value.typeName)") }
            return d
        }
        let label = try text("label", limit: 60) ?? name
        let description = try text("description", limit: 300)
        var botOnly = false
        switch lua.get(fields, "bot") {
        case .nil, .boolean(false): break
        case .boolean(true): botOnly = true
        case let other: throw invalid("param_info.\(name).bot must be true or false, got \(other.typeName)")
        }
        let low = try number("min"), high = try number("max"), step = try number("step")
        let choices = lua.get(fields, "choices")
        var kind: ParamKind
        if case .boolean = param {
            guard low == nil, high == nil, step == nil, choices.isNil else {
                throw invalid("param_info.\(name): an on/off param takes no min, max, step or choices")
            }
            kind = .toggle
        } else if case .table(let list) = choices {
            guard low == nil, high == nil, step == nil else { throw invalid("param_info.\(name): choices or a range (min, max), not both") }
            let values = try lua.array(list).prefix(32).map { item -> Param in
                let plain: Bool
                switch item { case .string, .integer, .number: plain = true; default: plain = false }
                guard plain, let choice = param.parse(item.description) else {
                    throw invalid("param_info.\(name).choices must list values of the param's type (\(param.typeName)), got \(item.typeName)")
                }
                return choice
            }
            guard values.contains(param) else {
                throw invalid("param_info.\(name).choices must include the default \(param)")
            }
            kind = .choice(values)
        } else if !choices.isNil {
            throw invalid("param_info.\(name).choices must be a list of values, got \(choices.typeName)")
        } else if low != nil || high != nil {
            guard let low, let high, low < high else { throw invalid("param_info.\(name): a range needs min < max") }
            let current: Double
            switch param {
            case .integer(let i): current = Double(i)
            case .number(let d): current = d
            default: throw invalid("param_info.\(name): min and max need a number param, this one is \(param.typeName)")
            }
            guard (low...high).contains(current) else {
                throw invalid("param_info.\(name): the default \(param) is outside min \(Self.number(low)) .. max \(Self.number(high))")
            }
            let defaultStep: Double
            if case .integer = param { defaultStep = 1 } else { defaultStep = (high - low) / 100 }
            let chosenStep = step ?? defaultStep
            guard chosenStep > 0, chosenStep <= high - low else {
                throw invalid("param_info.\(name).step must be above 0 and at most max - min")
            }
            kind = .range(min: low, max: high, step: chosenStep)
        } else {
            guard step == nil else { throw invalid("param_info.\(name).step needs min and max") }
            kind = .text
        }
        return ParamInfo(label: label, description: description, kind: kind, botOnly: botOnly)
    }
}

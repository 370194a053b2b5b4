import Lua

/// A rule script's declaration, validated: what `rules{...}` said, plus which hooks
/// the returned table defines.
public struct RuleSet: Sendable {
    /// A variant knob with its default; overrides must have the same type.
    public enum Param: Equatable, Sendable, CustomStringConvertible {
        case integer(Int64), number(Double), string(String), boolean(Bool)

        public var typeName: String {
            switch self {
            case .integer: return "an integer"
            case .number: return "a number"
            case .string: return "a string"
            case .boolean: return "a boolean"
            }
        }

        public var description: String {
            switch self {
            case .integer(let i): return String(i)
            case .number(let d): return LuaValue.format(d)
            case .string(let s): return s
            case .boolean(let b): return b ? "true" : "false"
            }
        }

        var luaValue: LuaValue {
            switch self {
            case .integer(let i): return .integer(i)
            case .number(let d): return .number(d)
            case .string(let s): return .string(s)
            case .boolean(let b): return .boolean(b)
            }
        }

        /// Parses `text` (from `--set key=text`) as the same type as this default.
        func parse(_ text: String) -> Param? {
            switch self {
            case .integer: return Int64(text).map(Param.integer)
            case .number: return Double(text).map(Param.number)
            case .string: return .string(text)
            case .boolean:
                switch text.lowercased() {
                case "true", "yes", "on", "1": return .boolean(true)
                case "false", "no", "off", "0": return .boolean(false)
                default: return nil
                }
            }
        }
    }

    public var name: String
    public var minPlayers: Int
    public var maxPlayers: Int
    public var dice: DiceNotation
    public var params: [(name: String, value: Param)]
    public var actions: [String]
    public var hooks: Set<String>
    /// Inputs ("roll" or action names) any player may make at any time; others come
    /// only from the player whose turn it is (`rules.anytime = {"snap"}`).
    public var anytime: Set<String> = []
    /// Inputs a player who is out (eliminated, or lost) may still make; the host refuses
    /// every other input from them (`rules.while_out = {"show"}`).
    public var whileOut: Set<String> = []
    /// Argument values an action takes, for tab completion at the prompt
    /// (`rules.choices = { ante = {5, 10, 25} }`); an action with several arguments lists
    /// them as tuples (`bid = {{1, 2}, {1, 3}}`, completed as "1 2"). Actions whose
    /// choices are a function of the position (`bid = function(g, p) ... end`) are in
    /// `positionalChoices` instead: see `Game.legalArguments`.
    public var choices: [String: [String]] = [:]
    /// Actions whose `choices` is a function `(g, p)` returning the argument lists legal now.
    public var positionalChoices: Set<String> = []
    /// `view_is_complete = true`: the view holds everything a player needs to decide (what
    /// they were shown earlier included), so best play with secrets takes a seat's view
    /// as its information set instead of the view and every event since the start.
    public var viewIsComplete = false
    /// `secret_rolls = true`: each roll is seen only by its roller; the others learn that
    /// a roll happened (Mia's cup, Liar's Dice). `g:reveal(p)` shows one to everyone.
    public var secretRolls = false
    /// `turn_seconds = 90`: how long a served room waits for a player's move before the
    /// rules' bot plays it (0: no clock; nil: the server's default). A room's creator may
    /// set another.
    public var turnSeconds: Int?
    /// `skip_absent = true`: a served room may pass an absent or idle player's turn on
    /// (`Game.passTurn`) when the rules have no bot to play it.
    public var skipsAbsent = false
    /// The values `turn_seconds` may take: no clock, or 10 s to an hour.
    public static let turnSecondsRange = 10...3600
    /// `keep_dice = true`: players keep some dice of their last roll and roll the others
    /// (`roll keep 1 3`, Yahtzee, Farkle), so `dicehost solve` tries keeping each subset.
    public var keepsDice = false
    /// `unordered_dice = true`: the order of a roll's values never matters to the rules
    /// (Liar's Dice sorts each cup), so `odds` and `solve` follow each set of values once.
    public var unorderedDice = false
    /// `statistics = {"rolls", "full_turn"}`: fields of `g.state` and of each player
    /// table that the rules keep only for statistics (`g:record`, a message), which later
    /// play never depends on. `solve` keeps them out of positions (each position holds
    /// their starting values), so a roll counter does not multiply the positions; it
    /// checks the promise on sampled games and refuses the rules when play differs.
    public var statistics: [String] = []
    /// `param_info`: each described param's label, description and kind (RuleSet+Lobby).
    public var paramInfo: [String: ParamInfo] = [:]
    /// `designer_actions = {"show"}`: actions for the designer (a debug print), never
    /// offered to players as buttons.
    public var designerActions: Set<String> = []
    /// False when the rules declare `dice = false` (Snap): front ends draw no dice.
    public var hasDice = true
    /// Problems that do not stop the rules loading (`dicehost check` prints them): a
    /// top-level field that is no known hook, e.g. a misspelled `on_rol`.
    public var warnings: [String] = []
    /// The script file and line of the `rules{...}` call.
    public var location: String
    /// Where each hook and action is defined ("file:line" → "roll", "actions.hold"), so a
    /// failure can be named by the hook it happened in (a traceback names a hook called
    /// from the host only by its definition, "function <file:line>").
    public var hookDefinitions: [String: String] = [:]

    /// The hook or action whose function a traceback shows outermost (the one the host
    /// called), e.g. "roll" or "actions.hold"; nil when the traceback names none.
    public func hook(in traceback: String) -> String? {
        var found: String?
        var rest = Substring(traceback)
        while let open = rest.range(of: "function <") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: ">") else { break }
            let place = String(rest[..<close])
            // Lua shortens a long chunk name to "...its end".
            if let name = hookDefinitions[place] ?? (place.hasPrefix("...") ? hookDefinitions.first { $0.key.hasSuffix(place.dropFirst(3)) }?.value : nil) {
                found = name
            }
            rest = rest[close...]
        }
        return found
    }

    public func param(_ name: String) -> Param? { params.first(where: { $0.name == name })?.value }

    /// A `--set` override the rules do not take (an unknown param, a value of the wrong
    /// type): the script loaded, the command line was wrong (bad usage, exit 2).
    public struct OverrideError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Applies `--set` overrides, each checked against its declared type; `dice` may
    /// always be overridden with dice notation. Throws `OverrideError`.
    public func applying(_ overrides: [(String, String)]) throws -> RuleSet {
        var result = self
        for (key, text) in overrides {
            if key == "dice", param("dice") == nil {
                do { result.dice = try DiceNotation(text) } catch { throw OverrideError(description: "\(error)") }
                continue
            }
            guard let index = result.params.firstIndex(where: { $0.name == key }) else {
                let known = params.map(\.name) + (param("dice") == nil ? ["dice"] : [])
                throw OverrideError(description: "unknown param '\(key)' (this game has: \(known.joined(separator: ", ")))")
            }
            guard let value = result.params[index].value.parse(text) else {
                throw OverrideError(description: "param '\(key)' must be \(result.params[index].value.typeName), got '\(text)'")
            }
            result.params[index].value = value
            if key == "dice", case .string(let notation) = value {
                do { result.dice = try DiceNotation(notation) } catch { throw OverrideError(description: "\(error)") }
            }
        }
        return result
    }

    /// A few lines for `dicehost check`.
    public var summary: String {
        var lines = ["\(name): \(minPlayers == maxPlayers ? "\(minPlayers)" : "\(minPlayers)-\(maxPlayers)") players, dice \(dice)"]
        if !params.isEmpty { lines.append("params: " + params.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")) }
        if !actions.isEmpty { lines.append("actions: " + actions.joined(separator: ", ")) }
        if !anytime.isEmpty { lines.append("out of turn: " + anytime.sorted().joined(separator: ", ")) }
        if !whileOut.isEmpty { lines.append("while out: " + whileOut.sorted().joined(separator: ", ")) }
        lines.append("hooks: " + hooks.sorted().joined(separator: ", "))
        return lines.joined(separator: "\n")
    }

    static let knownHooks = ["setup", "turn", "roll", "bot", "migrate", "status", "on_device", "view", "table", "invariant"]

    /// Validates a `rules{...}` declaration table (raised at the script's line).
    static func declaration(from table: LuaRef, in lua: LuaState, location: String) throws -> RuleSet {
        func fail(_ message: String) -> LuaCall.Failure { .argument(1, message) }
        guard case .string(let name) = lua.get(table, "name"), !name.isEmpty else {
            throw fail("name must be a non-empty string")
        }
        var minPlayers = 1, maxPlayers = 1
        switch lua.get(table, "players") {
        case .nil: break
        case .integer(let n): minPlayers = Int(n); maxPlayers = Int(n)
        case .table(let range):
            let bounds = lua.array(range).compactMap(\.intValue)
            guard bounds.count == 2, lua.length(range) == 2 else { throw fail("players must be {min, max}, e.g. {2, 4}") }
            (minPlayers, maxPlayers) = (bounds[0], bounds[1])
        case let other: throw fail("players must be {min, max} or a number, got \(other.typeName)")
        }
        guard minPlayers >= 1, minPlayers <= maxPlayers, maxPlayers <= 16 else {
            throw fail("players must be {min, max} with 1 <= min <= max <= 16, got {\(minPlayers), \(maxPlayers)}")
        }
        var dice = try DiceNotation("1d6")
        var hasDice = true
        switch lua.get(table, "dice") {
        case .nil: break
        case .boolean(false): hasDice = false  // a game without dice (Snap): no Roll button, no dice drawn
        case .string(let text):
            do { dice = try DiceNotation(text) } catch { throw fail("\(error)") }
        case let other: throw fail("dice must be dice notation like \"2d6\" (or false for a game without dice), got \(other.typeName)")
        }
        var params: [(name: String, value: Param)] = []
        switch lua.get(table, "params") {
        case .nil: break
        case .table(let t):
            for (key, value) in lua.entries(t) {
                guard case .string(let key) = key else { throw fail("params keys must be names, got \(key.typeName)") }
                switch value {
                case .integer(let i): params.append((key, .integer(i)))
                case .number(let d): params.append((key, .number(d)))
                case .string(let s): params.append((key, .string(s)))
                case .boolean(let b): params.append((key, .boolean(b)))
                default: throw fail("param '\(key)' must default to a number, string or boolean, got \(value.typeName)")
                }
            }
        case let other: throw fail("params must be a table of defaults, got \(other.typeName)")
        }
        if case .string(let notation)? = params.first(where: { $0.name == "dice" })?.value {
            do { dice = try DiceNotation(notation) } catch { throw fail("param dice: \(error)") }
        }
        var rules = RuleSet(name: name, minPlayers: minPlayers, maxPlayers: maxPlayers, dice: dice, params: params,
                            actions: [], hooks: [], location: location)
        rules.hasDice = hasDice
        return rules
    }

    /// Completes the declaration with the hooks the returned table defines.
    mutating func readHooks(from table: LuaRef, in lua: LuaState) throws {
        hooks = Set(Self.knownHooks.filter { if case .function = lua.get(table, .string($0)) { return true } else { return false } })
        for hook in Self.knownHooks {
            let value = lua.get(table, .string(hook))
            if !value.isNil, case .function = value {} else if !value.isNil {
                throw GameError.invalidRules("\(hook) must be a function, got \(value.typeName)", location: location)
            }
        }
        guard hooks.contains("roll") else {
            throw GameError.invalidRules("rules '\(name)' define no roll hook: add function <rules>.roll(g, p, r)", location: location)
        }
        for hook in hooks {
            if case .function(let function) = lua.get(table, .string(hook)), let definition = lua.definition(of: function) {
                hookDefinitions["\(definition.file):\(definition.line)"] = hook
            }
        }
        switch lua.get(table, "actions") {
        case .nil: actions = []
        case .table(let t):
            actions = []
            for (key, value) in lua.entries(t) {
                guard case .string(let name) = key, case .function(let function) = value else {
                    throw GameError.invalidRules("actions must map names to functions, got \(key) = \(value.typeName)", location: location)
                }
                actions.append(name)
                if let definition = lua.definition(of: function) { hookDefinitions["\(definition.file):\(definition.line)"] = "actions.\(name)" }
            }
        case let other:
            throw GameError.invalidRules("actions must be a table of functions, got \(other.typeName)", location: location)
        }
        // Declarations that are true or false (absent: false).
        func flag(_ field: String) throws -> Bool {
            switch lua.get(table, .string(field)) {
            case .nil, .boolean(false): return false
            case .boolean(true): return true
            case let other: throw GameError.invalidRules("\(field) must be true or false, got \(other.typeName)", location: location)
            }
        }
        secretRolls = try flag("secret_rolls")
        unorderedDice = try flag("unordered_dice")
        viewIsComplete = try flag("view_is_complete")
        keepsDice = try flag("keep_dice")
        func inputList(_ field: String, _ what: String, example: String) throws -> Set<String> {
            var inputs: Set<String> = []
            switch lua.get(table, .string(field)) {
            case .nil: break
            case .table(let t):
                for value in lua.array(t) {
                    guard case .string(let input) = value, input == "roll" || actions.contains(input) else {
                        let known = (["roll"] + actions).joined(separator: ", ")
                        throw GameError.invalidRules("\(field) must list inputs \(what) (\(known)), got \(value.description.prefix(40))",
                                                     location: location)
                    }
                    inputs.insert(input)
                }
            case let other:
                throw GameError.invalidRules("\(field) must be a list of action names, e.g. \(example), got \(other.typeName)", location: location)
            }
            return inputs
        }
        switch lua.get(table, "statistics") {
        case .nil: break
        case .table(let t):
            let names = lua.array(t)
            guard names.count == lua.entries(t).count, names.count <= 64 else {
                throw GameError.invalidRules("statistics must be a list of at most 64 field names, e.g. {\"rolls\", \"full_turn\"}", location: location)
            }
            for value in names {
                guard case .string(let field) = value, !field.isEmpty, field.utf8.count <= 100 else {
                    throw GameError.invalidRules("statistics must list field names (strings) of g.state and the players, e.g. {\"rolls\"}, got \(value.description.prefix(40))",
                                                 location: location)
                }
                guard !Self.hostPlayerFields.contains(field) else {
                    throw GameError.invalidRules("statistics cannot list '\(field)': the host keeps it for the rules (\(Self.hostPlayerFields.sorted().joined(separator: ", ")))",
                                                 location: location)
                }
                if !statistics.contains(field) { statistics.append(field) }
            }
        case let other:
            throw GameError.invalidRules("statistics must be a list of field names, e.g. {\"rolls\", \"full_turn\"}, got \(other.typeName)", location: location)
        }
        switch lua.get(table, "turn_seconds") {
        case .nil: turnSeconds = nil
        case .integer(let n) where n == 0 || Self.turnSecondsRange.contains(Int(clamping: n)): turnSeconds = Int(n)
        case let other:
            throw GameError.invalidRules("turn_seconds must be 0 (no clock) or whole seconds from \(Self.turnSecondsRange.lowerBound) to \(Self.turnSecondsRange.upperBound), e.g. 90, got \(other.description.prefix(40))",
                                         location: location)
        }
        switch lua.get(table, "skip_absent") {
        case .nil: skipsAbsent = false
        case .boolean(let flag): skipsAbsent = flag
        case let other:
            throw GameError.invalidRules("skip_absent must be true or false, got \(other.typeName)", location: location)
        }
        anytime = try inputList("anytime", "any player may make out of turn", example: "{\"snap\"}")
        whileOut = try inputList("while_out", "a player who is out may still make", example: "{\"show\"}")
        choices = [:]
        positionalChoices = []
        switch lua.get(table, "choices") {
        case .nil: break
        case .table(let t):
            for (key, value) in lua.entries(t) {
                guard case .string(let action) = key, actions.contains(action) else {
                    throw GameError.invalidRules("choices must map action names to lists of argument values, e.g. { ante = {5, 10, 25} }, got \(key.description.prefix(40))",
                                                 location: location)
                }
                switch value {
                case .function:
                    positionalChoices.insert(action)
                case .table(let list):
                    choices[action] = try lua.array(list).prefix(1000).compactMap { item -> String? in
                        switch item {
                        case .string(let s): return s
                        case .integer, .number, .boolean: return item.description
                        case .table(let tuple):
                            let words = try lua.array(tuple).map { part -> String in
                                switch part {
                                case .string, .integer, .number, .boolean: return part.description
                                default:
                                    throw GameError.invalidRules("choices.\(action) lists argument tuples of strings, numbers or booleans, e.g. {{1, 2}, {1, 3}}, got a \(part.typeName) in one", location: location)
                                }
                            }
                            return words.joined(separator: " ")
                        default: return nil
                        }
                    }
                default:
                    throw GameError.invalidRules("choices.\(action) must be a list of argument values ({5, 10, 25}), of argument tuples ({{1, 2}, {1, 3}}) or a function (g, p) returning one, got \(value.typeName)",
                                                 location: location)
                }
            }
        case let other:
            throw GameError.invalidRules("choices must be a table, e.g. { ante = {5, 10, 25} }, got \(other.typeName)", location: location)
        }
        try readLobbyFields(from: table, in: lua)
        // Helpers a variant may override (race.move) are fine; a near miss of a hook is not.
        warnings = lua.entries(table).compactMap { key, value in
            guard case .string(let field) = key, !Self.knownFields.contains(field), let nearest = Self.nearestField(to: field) else { return nil }
            // A misspelled hook is a function: point at where it is written, not at rules{.
            var at = location
            if case .function(let function) = value, let definition = lua.definition(of: function) { at = "\(definition.file):\(definition.line)" }
            return "unknown rule field '\(field)' (\(at)): the host never calls it; did you mean '\(nearest)'?"
        }
        // Without a view hook the host's view hides only p.last_roll (Game.readHooks).
        if secretRolls && !hooks.contains("view") {
            warnings.append("secret_rolls without a view hook (\(location)): the host's view hides the other players' last_roll, but whatever else the rules keep of a roll in g (g.state, a player's other fields) every player and bot sees; a view(g, viewer) decides that")
        }
    }

    /// Every field of a rule table the host reads: the declaration's and the hooks.
    static let knownFields: Set<String> = Set(knownHooks + ["name", "players", "dice", "params", "actions", "anytime", "while_out", "choices", "base", "secret_rolls", "keep_dice", "unordered_dice", "view_is_complete", "statistics", "turn_seconds", "skip_absent"] + lobbyFields)
    /// Fields of a player table the host itself keeps (never rules' statistics).
    static let hostPlayerFields: Set<String> = ["name", "seat", "last_roll", "dice", "eliminated"]

    /// The known field a misspelled one most likely meant (`on_rol` → `roll`,
    /// `turn_start` → `turn`): once common decorations (`on_`, `_start`, `_hook`) are set
    /// aside, the field itself or the nearest by `NearestWord` (the edit distance every
    /// "did you mean" uses); nil for a field far from all (a helper).
    static func nearestField(to field: String) -> String? {
        var core = field.lowercased()
        for prefix in ["on_", "on", "handle_"] where core.hasPrefix(prefix) && core.count > prefix.count { core.removeFirst(prefix.count) }
        for suffix in ["_start", "_begin", "_hook", "_handler", "s"] where core.hasSuffix(suffix) && core.count > suffix.count { core.removeLast(suffix.count) }
        if knownFields.contains(core) { return core }
        return NearestWord.to(core, among: knownFields.sorted())
    }
}

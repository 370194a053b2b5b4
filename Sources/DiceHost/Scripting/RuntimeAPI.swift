import Lua

/// The functions of the runtime prelude the host calls directly.
struct RuntimeAPI {
    var newGame: LuaValue
    var rollInput: LuaValue
    var rollInputKept: LuaValue = .nil
    var snapshot: LuaValue
    var restore: LuaValue
    var setQuiet: LuaValue
    var startGame: LuaValue
    var botMoves: LuaValue
    /// Everything the prelude exports (the fast simulation driver reads its parts), and `led`.
    var exports: LuaValue = .nil
    var led: LuaValue = .nil

    static let placeholder = RuntimeAPI(newGame: .nil, rollInput: .nil, snapshot: .nil, restore: .nil, setQuiet: .nil,
                                        startGame: .nil, botMoves: .nil)
}

extension Game {
    /// Installs `rules`, `dice`, `led`, `timer`, `cards` and the methods of `g`.
    /// `beforeFreezing` runs once they are in and before the globals become read-only
    /// (exact odds wraps a few raw functions there).
    func installLibraries(beforeFreezing: ((LuaState) throws -> Void)? = nil) throws -> RuntimeAPI {
        // The simulation loop's plumbing is free; every other host call is charged.
        let plumbing: Set<String> = ["take_turn", "adopt", "first_turn", "begin_step", "is_over"]
        let hostTable = lua.makeTable(fields: (guardedAgainstFastSimulation(gameFunctions()) + diceFunctions()).map {
            ($0.0, lua.function(cost: plumbing.contains($0.0) ? 0 : LuaState.hostCallCost, $0.1))
        }
                                      + [("turn_pass_limit", .integer(Int64(Self.turnPassLimit))), ("raw_next", lua.rawNext)])
        let chunk = try lua.loadHostChunk(RuntimePrelude.source, chunkName: RuntimePrelude.chunkName)
        guard let exports = try lua.call(.function(chunk), [.table(hostTable)], budget: .some(nil)).first?.tableRef else {
            throw GameError.refused("the runtime prelude returned nothing")
        }
        installDiceDistribution(hostTable: hostTable, exports: exports)
        let globals = lua.globals
        for name in ["rules", "timer", "cards", "dice", "hidden"] { lua.set(globals, .string(name), lua.get(exports, .string(name))) }
        let led = lua.register(library: "led", ledFunctions())
        lua.set(led, "ALL", .integer(63))
        // The led functions as the host made them, before any script could replace one
        // (a fast simulation leaves a study whose script did to the host).
        let ledMade = lua.newTable()
        for (name, function) in lua.entries(led) where function.typeName == "function" { lua.set(ledMade, name, function) }
        lua.set(exports, "led_made", .table(ledMade))
        try installDeviceLibraries()
        let (snapshot, restore, _) = lua.snapshotFunctions()
        var api = RuntimeAPI(newGame: lua.get(exports, "new_game"),
                             rollInput: lua.get(exports, "roll_input"), rollInputKept: lua.get(exports, "roll_input_kept"),
                             snapshot: snapshot, restore: restore,
                             setQuiet: lua.get(exports, "set_quiet"),
                             startGame: lua.get(exports, "start_game"), botMoves: lua.get(exports, "bot_moves"))
        api.exports = .table(exports)
        try beforeFreezing?(lua)
        api.led = .table(freezeGlobals(led: led))
        return api
    }

    /// While a fast simulation plays, the host's game functions are not the game's: one a
    /// script kept from elsewhere and calls then stops the fast game, which the host then
    /// plays move by move (see FastSimulationDriver).
    func guardedAgainstFastSimulation(_ functions: [(String, LuaFunctionBody)]) -> [(String, LuaFunctionBody)] {
        functions.map { name, body in
            (name, { [unowned self] call in
                if fastSimulation?.isPlaying == true {
                    throw LuaCall.Failure.message("dicehost-simulation: \(name) is played move by move")
                }
                return try body(call)
            })
        }
    }

    /// Runs the script and finds the rule table it returns.
    func loadRules(source: [UInt8]) throws -> (RuleSet, LuaRef) {
        let results: [LuaValue]
        lua.noteSourceFile(chunkName: displayPath, path: sourcePath)
        do {
            results = try lua.whileLoading { try lua.call(.function(lua.load(bytes: source, chunkName: displayPath))) }
        } catch let error as LuaError {
            throw GameError.script(error)
        }
        guard case .table(let table)? = results.first,
              var rules = declared.last(where: { $0.table == table })?.rules else {
            throw GameError.invalidRules("the script must return the table made by rules{...} (it returned \(results.first?.typeName ?? "nothing"))",
                                         location: displayPath)
        }
        try rules.readHooks(from: table, in: lua)
        rules = try rules.applying(overrides)
        return (rules, freezeRules(table))
    }
}

import CLua
import CLuaSupport

extension LuaState {
    /// The C functions a simulation driver written in Lua needs (CLuaSupport/simulation.c):
    /// `begin_game(seed, index)` seeds the generator for game `index` of a study as
    /// `Simulation.gameSeed` does and gives the game a fresh budget; `end_game(charged)`
    /// says whether the game certainly kept each input within its budget; `roll(count,
    /// sides)` draws dice; `reset(t)` empties a table; `tally(...)` counts a game.
    public func simulationFunctions() -> LuaValue {
        clua_push_simulation_functions(L)
        defer { clua_pop(L, 1) }
        return value(at: -1)
    }

    /// Switches the collector to generational mode, where the many short-lived tables of
    /// a simulation (rolls) are collected cheaply. Results do not depend on it.
    public func useGenerationalCollector() {
        clua_use_generational_gc(L)
    }
}

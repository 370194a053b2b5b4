/// The Lua half of a fast simulation (`FastSimulation`): it plays a block of games in one
/// call, with no crossing into Swift per move. Each game is the one `dicehost play
/// --seed … --auto` plays: the generator seeded as the host seeds it, the dice drawn
/// the same way, the bot asked and its move made as the host makes it, and the same
/// results counted. What the host does for a hook (`g:next_turn`, `g:win`, `g:record`,
/// timers, LED commands) the driver does in Lua, checking arguments as far as the fast
/// path needs: anything it does not handle, or anything the host would refuse, stops the
/// game with an error, and the host plays that game again move by move (the reference),
/// so a fast game either equals the reference or is replaced by it.
///
/// Text (`g:say`, `g:emit`) and LED commands are counted no-ops: no simulation reads them,
/// but their cost is still charged, so a game passes its budget as it would in play
/// (LED commands and `g:say` are C functions, CLuaSupport/simulation.c; `g:emit` of a
/// table goes to the host, whose rendering calls the table's __tostring).
/// The tables of a game (g, players, state, params) are made once per worker and emptied
/// for each game (in C). Roll tables are reused as the prelude reuses them in play (two
/// per player, see `deliver_roll`), but refilled in place: a roll's own fields are
/// written over, and the table is emptied first only when a hook added a field to it. A
/// hook cannot add one unseen: roll and values tables carry a watching metatable here,
/// registered with the sandbox (its `__newindex`, and the sandbox's `rawset`, mark the
/// table; `getmetatable` shows what play shows and `setmetatable` refuses, see
/// CLuaSupport/sandbox.c). The prelude's `Roll`, which gives rolls their methods, must
/// hold only its own two fields when a call starts, carries a watching metatable while
/// the driver plays, and is checked unchanged after each game. Each finished game is
/// written to the block's log (outcome, rolls, turns, its records); the host counts the
/// log in C, up to `log.done`, so a call stopped anywhere counts whole games only.
///
/// The hot path calls no C function it can avoid: checks are table lookups and integer
/// operations (`x | 0` raises for anything that is not a whole number, which sends the
/// game to the host). It reads `g.current` and a player's `seat` with plain indexing
/// where the host reads raw: the same unless a script deletes such a field and gives the
/// table a metatable whose __index supplies it (`last_roll`, absent before a player's
/// first roll, is read raw unless it is one of the player's own two rolls).
///
/// It runs in the sandbox with chunk name "dicehost-simulation".
enum FastSimulationDriver {
    static let chunkName = "dicehost-simulation"
    /// The Lua source: `dicehost-simulation.lua` beside this file, compiled into the binary.
    static var source: String { String(decoding: PackageResources.dicehost_simulation_lua, as: UTF8.self) }
}

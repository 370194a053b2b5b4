/// The Lua half of the scripting API: thin wrappers that give the host functions
/// their Lua shape (methods on `g`, timer handles, printable rolls and cards) and the
/// simulation loop. It runs in the sandbox
/// with chunk name "dicehost-runtime"; its locals are out of the scripts' reach.
enum RuntimePrelude {
    static let chunkName = "dicehost-runtime"
    /// The Lua source: `dicehost-runtime.lua` beside this file, compiled into the binary.
    static var source: String { String(decoding: PackageResources.dicehost_runtime_lua, as: UTF8.self) }
}

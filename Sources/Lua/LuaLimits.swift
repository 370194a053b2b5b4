/// The resources one Lua state may use.
public struct LuaLimits: Sendable, Equatable {
    /// Bytes the state may allocate, counted by its allocator. Default 64 MiB.
    public var memoryBytes: Int
    /// Lua VM instructions one call from Swift may run, or nil for no limit (no hook
    /// is installed then). Default 100 million, about a second of busy script.
    public var instructionBudget: Int?

    public init(memoryBytes: Int = 64 << 20, instructionBudget: Int? = 100_000_000) {
        self.memoryBytes = memoryBytes
        self.instructionBudget = instructionBudget
    }

    public static let `default` = LuaLimits()
}

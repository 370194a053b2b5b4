import CLua
import CLuaSupport

/// The state's random generator: xoshiro256**, seeded through splitmix64. `math.random`
/// in scripts and the host's dice draw from this one stream, so a game is a function
/// of its seed and inputs, identical on every machine.
public struct LuaRandom {
    let context: UnsafeMutablePointer<clua_context>

    /// Restarts the stream from a 64-bit seed.
    public func seed(_ seed: UInt64) { clua_random_seed(context, seed) }

    /// The next 64 random bits.
    public func next() -> UInt64 { clua_random_next(context) }

    /// A uniform integer in the range, without modulo bias.
    public func integer(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(bitPattern: Int64(range.upperBound) &- Int64(range.lowerBound))
        return range.lowerBound &+ Int(truncatingIfNeeded: clua_random_below_or_equal(context, span))
    }

    /// A uniform float in [0, 1).
    public func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// The generator's whole state, for snapshots and undo.
    public var state: [UInt64] {
        get {
            withUnsafeBytes(of: context.pointee.random_state) { Array($0.bindMemory(to: UInt64.self)) }
        }
        nonmutating set {
            guard newValue.count == 4 else { return }
            context.pointee.random_state = (newValue[0], newValue[1], newValue[2], newValue[3])
        }
    }
}

extension LuaState {
    public var random: LuaRandom { LuaRandom(context: context) }
}

/// A die in software that a test, the REPL or an example can throw: `SimulatedDie`, and a
/// `PixelsDie` whose transport is a `SimulatedPixel`.
public protocol ThrowableDie: AnyObject {
    /// Whether the die is connected (a die that is not cannot be thrown).
    var isConnected: Bool { get }
    /// Throws so far.
    var rolls: Int { get }
    /// A player throws the die: given `values`, else faces from the die's seed, flagged
    /// as forced (`flag`) or as its faults say. False if the die is not connected.
    @discardableResult
    func throwDie(values: [Int]?, flag: Roll.Flag?) -> Bool
}

extension SimulatedDie: ThrowableDie {}

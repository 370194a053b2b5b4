/// What a die says it is doing as it is picked up and thrown (after Pixels dice): an
/// app animates it; the game only hears the roll it ends in.
public enum RollState: String, Sendable, CaseIterable {
    /// Picked up, being shaken.
    case handling
    /// Tumbling.
    case rolling
    /// Came to rest with a face up (the roll follows).
    case rolled
    /// Came to rest tilted against something: no clear face (a `tilt` roll follows).
    case crooked
    /// Lying still on a face, not being rolled.
    case onFace = "on_face"
}

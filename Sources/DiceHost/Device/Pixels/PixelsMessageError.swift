/// Bytes that are not a Pixels message the host knows, or a message that cannot be
/// written: which message, which field, what was expected and what came.
public struct PixelsMessageError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// No bytes at all.
        case empty
        /// An id the host does not read or write.
        case unknownID(UInt8)
        /// Fewer bytes than the message has.
        case short(expected: Int, got: Int)
        /// More bytes than the message has.
        case long(expected: Int, got: Int)
        /// A field whose value is outside what the protocol allows.
        case badField(String, value: Int, expected: String)
    }

    public var kind: Kind
    /// The message's protocol name ("RollState"), when the id was known.
    public var message: String?

    public init(_ kind: Kind, message: String? = nil) {
        self.kind = kind
        self.message = message
    }

    public var description: String {
        let subject = message.map { "Pixels message \($0)" } ?? "Pixels message"
        switch kind {
        case .empty: return "\(subject): no bytes (expected at least the message id)"
        case .unknownID(let id): return "\(subject): unknown message id \(id) (the host reads ids 2, 3, 30, 34, 36)"
        case .short(let expected, let got): return "\(subject): \(got) byte\(got == 1 ? "" : "s"), too short (expected \(expected))"
        case .long(let expected, let got): return "\(subject): \(got) bytes, too long (expected \(expected))"
        case .badField(let field, let value, let expected): return "\(subject): \(field) \(value), expected \(expected)"
        }
    }
}

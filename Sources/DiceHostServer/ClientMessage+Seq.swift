import DiceHost

extension ClientMessage {
    static let inputTypes: Set<String> = ["start", "ready", "restart", "abandon", "roll", "action"]

    /// The `seq` of an input that was refused before it was read whole (a bad field, or
    /// dropped by the rate limit), so that the refusal names it: every input is answered
    /// with its `seq`. Nil when the text is not an input with a valid `seq`.
    static func inputSeq(of text: String) -> Int64? {
        guard text.utf8.count <= ServerProtocol.maxMessageBytes, let parsed = try? JSONValue.parse(text),
              case .object(let object) = parsed, case .string(let type)? = object["type"], inputTypes.contains(type),
              case .integer(let seq)? = object["seq"], (1...ServerProtocol.maxSequence).contains(seq) else { return nil }
        return seq
    }
}

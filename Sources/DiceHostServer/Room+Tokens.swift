import DiceHost
import Foundation

/// A seat's token: what a player comes back with (128 random bits, handed out once), kept
/// by the room and the store only as its SHA-256.
extension Room {
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// A token's SHA-256 (a token is 128 random bits: a fast hash is enough, nothing to
    /// guess from it). The store and the room keep only this.
    static func tokenHash(_ token: String) -> String { SHA256.hex(of: Array(token.utf8)) }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

import Foundation

/// What each seat is shown along the moves of a `MoveGraph`, as 64-bit fingerprints: per
/// position the seat's view (the rules' `view(g, seat)`), per edge the events the seat
/// received on that step (as `GameEvent.seen(by:)` gives them, the way a served client
/// gets them) and, for the seat that moved, the move it chose. Best play with secrets
/// builds each seat's information sets from these (see `InformationSetTree`).
final class Observations {
    let seats: Int
    /// Per position × seat: the view's fingerprint (0 for terminal positions).
    var view: [UInt64] = []
    /// Per edge × seat (in the order of `MoveGraph.edgeTarget`).
    var edge: [UInt64] = []

    init(seats: Int) { self.seats = seats }
}

/// FNV-1a over bytes, finished with a 64-bit mixer: a fingerprint of what a seat saw.
struct Fingerprint {
    private(set) var value: UInt64 = 0xcbf29ce484222325

    mutating func add(_ text: String) {
        for byte in text.utf8 { value = (value ^ UInt64(byte)) &* 0x100000001b3 }
        add(UInt64(text.utf8.count))
    }

    mutating func add(_ number: UInt64) {
        var v = number
        for _ in 0..<8 { value = (value ^ (v & 0xff)) &* 0x100000001b3; v >>= 8 }
    }

    /// A JSON value with object keys in sorted order: equal content, equal fingerprint,
    /// whatever order the view's table was built in.
    mutating func add(_ json: JSONValue) {
        switch json {
        case .null: add(1)
        case .bool(let b): add(b ? 2 : 3)
        case .integer(let i): add(4); add(UInt64(bitPattern: i))
        case .unsigned(let u): add(5); add(u)
        case .number(let d):
            if let i = Int64(exactly: d) { add(4); add(UInt64(bitPattern: i)) } else { add(6); add(d.bitPattern) }
        case .string(let s): add(7); add(s)
        case .array(let items): add(8); add(UInt64(items.count)); for item in items { add(item) }
        case .object(let fields):
            add(9); add(UInt64(fields.count))
            for key in fields.keys.sorted() { add(key); if let v = fields[key] { add(v) } }
        }
    }

    /// `previous` followed by `next`, mixed (splitmix64's finaliser).
    static func combine(_ previous: UInt64, _ next: UInt64) -> UInt64 {
        var z = previous &+ 0x9e3779b97f4a7c15 &+ (next ^ (next >> 29)) &* 0xbf58476d1ce4e5b9
        z = (z ^ (z >> 30)) &* 0xbf58476d1ce4e5b9
        z = (z ^ (z >> 27)) &* 0x94d049bb133111eb
        return z ^ (z >> 31)
    }
}

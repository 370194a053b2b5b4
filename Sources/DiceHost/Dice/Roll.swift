/// One roll of the game's dice, as a smart die reports it.
public struct Roll: Equatable, Sendable, CustomStringConvertible {
    /// How the die says the roll went (DICE+ roll flags).
    public enum Flag: String, Sendable, CaseIterable {
        case ok, tilt, tooShort = "too_short"
    }

    public var values: [Int]
    public var total: Int
    public var flag: Flag

    public init(values: [Int], total: Int? = nil, flag: Flag = .ok) {
        self.values = values
        self.total = total ?? values.reduce(0) { $0.saturatingAdded($1) } // an app may pass any values
        self.flag = flag
    }

    public var ok: Bool { flag == .ok }
    /// All dice equal (with several dice); with one die the rules compare with the
    /// player's previous roll (`r.previous`).
    public var doubles: Bool { values.count > 1 && Set(values).count == 1 }

    /// "⚂ ⚄ = 8", or "tilt" for a flagged roll.
    public var description: String {
        guard ok else { return flag.rawValue }
        let faces = values.map(Roll.glyph).joined(separator: " ")
        return values.count == 1 && total == values[0] ? faces : "\(faces) = \(total)"
    }

    private static let glyphs = Array("⚀⚁⚂⚃⚄⚅")

    /// ⚀…⚅ for 1…6, the number itself otherwise.
    public static func glyph(_ n: Int) -> String {
        (1...6).contains(n) ? String(glyphs[n - 1]) : "[\(n)]"
    }
}

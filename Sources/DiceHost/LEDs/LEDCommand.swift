/// A colour on the die's LEDs.
public struct LEDColor: Equatable, Sendable, CustomStringConvertible {
    public var red: Int, green: Int, blue: Int

    /// Each part is clamped to 0...255 (what a LED can show), so fades and hex forms
    /// never meet an out-of-range value.
    public init(red: Int, green: Int, blue: Int) {
        func clamp(_ v: Int) -> Int { Swift.min(Swift.max(v, 0), 255) }
        (self.red, self.green, self.blue) = (clamp(red), clamp(green), clamp(blue))
    }

    public static let off = LEDColor(red: 0, green: 0, blue: 0)
    public static let named: [String: LEDColor] = [
        "off": .off, "black": .off, "red": .init(red: 255, green: 0, blue: 0),
        "green": .init(red: 0, green: 255, blue: 0), "blue": .init(red: 0, green: 0, blue: 255),
        "yellow": .init(red: 255, green: 255, blue: 0), "orange": .init(red: 255, green: 128, blue: 0),
        "purple": .init(red: 128, green: 0, blue: 255), "cyan": .init(red: 0, green: 255, blue: 255),
        "magenta": .init(red: 255, green: 0, blue: 255), "white": .init(red: 255, green: 255, blue: 255),
    ]

    /// The colour's name when it has one, else "#rrggbb".
    public var description: String {
        if let name = LEDColor.named.sorted(by: { $0.key < $1.key }).first(where: { $0.value == self && $0.key != "black" })?.key {
            return name
        }
        func hex(_ v: Int) -> String { let s = String(v, radix: 16); return s.count == 1 ? "0" + s : s }
        return "#" + hex(red) + hex(green) + hex(blue)
    }
}

/// The faces of a die as a bit mask: face n is bit `1 << (n - 1)`, all six faces 63.
public struct LEDMask: Equatable, Sendable, CustomStringConvertible {
    public var rawValue: Int
    public static let all = LEDMask(rawValue: 63)

    public init(rawValue: Int) { self.rawValue = rawValue }
    public static func face(_ n: Int) -> LEDMask { LEDMask(rawValue: 1 << (n - 1)) }

    public func contains(face n: Int) -> Bool { rawValue & (1 << (n - 1)) != 0 }
    public var faces: [Int] { (1...6).filter(contains(face:)) }

    /// "all", or the faces as "1,3,5".
    public var description: String {
        rawValue == 63 ? "all" : faces.map(String.init).joined(separator: ",")
    }
}

/// One command to the die's LEDs (the DICE+ model).
public struct LEDCommand: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// Steady colour until changed.
        case set
        /// Off.
        case off
        /// `count` times: lit for `on` ms, each blink starting `cycle` ms after the last
        /// (when `cycle` <= `on`, `cycle` is the dark gap between blinks instead).
        case blink(on: Int, cycle: Int, count: Int)
        /// From the face's current colour to this one over `duration` ms, then steady.
        case fade(duration: Int)
    }

    public var kind: Kind
    public var mask: LEDMask
    public var color: LEDColor
    public var priority: Int

    public init(_ kind: Kind, mask: LEDMask, color: LEDColor = .off, priority: Int = 0) {
        self.kind = kind
        self.mask = mask
        self.color = color
        self.priority = priority
    }

    /// How long the command animates; nil for commands that hold until changed.
    public var duration: Int? {
        switch kind {
        case .set, .off, .fade: return nil
        case .blink(let on, let cycle, let count): return count.saturatingMultiplied(by: Self.period(on: on, cycle: cycle))
        }
    }

    /// Scripts' values are range-checked (`HostLimits`), but an app may build any
    /// command: the arithmetic saturates rather than trap.
    static func period(on: Int, cycle: Int) -> Int { cycle > on ? cycle : on.saturatingAdded(cycle) }

    /// The colour a face shows `elapsed` ms after the command started.
    func color(after elapsed: Int, from previous: LEDColor) -> LEDColor {
        switch kind {
        case .set: return color
        case .off: return .off
        case .blink(let on, let cycle, let count):
            let period = Self.period(on: on, cycle: cycle)
            guard period > 0, elapsed >= 0, elapsed < count.saturatingMultiplied(by: period) else { return .off }
            return elapsed % period < on ? color : .off
        case .fade(let duration):
            guard duration > 0, elapsed < duration else { return color }
            guard elapsed > 0 else { return previous }
            // Parts are 0...255, so only an app's huge duration can overflow the product;
            // then the float form is exact enough and its result is within ±255.
            func mix(_ a: Int, _ b: Int) -> Int {
                let (product, overflow) = (b - a).multipliedReportingOverflow(by: elapsed)
                if overflow { return a + Int(Double(b - a) * (Double(elapsed) / Double(duration))) }
                return a + product / duration
            }
            return LEDColor(red: mix(previous.red, color.red), green: mix(previous.green, color.green), blue: mix(previous.blue, color.blue))
        }
    }

    public var description: String {
        switch kind {
        case .set: return "set \(mask) \(color)"
        case .off: return "off \(mask)"
        case .blink(let on, let cycle, let count):
            return "blink \(mask) \(color) on=\(on)ms cycle=\(cycle)ms count=\(count) priority=\(priority)"
        case .fade(let duration): return "fade \(mask) \(color) \(duration)ms"
        }
    }
}

extension Int {
    /// `self * other`, or Int.max / Int.min where that overflows.
    func saturatingMultiplied(by other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : product
    }

    /// `self + other`, or Int.max / Int.min where that overflows.
    func saturatingAdded(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}

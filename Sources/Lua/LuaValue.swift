import Foundation

/// A Lua value seen from Swift. Scalars are copied; tables, functions, userdata and
/// coroutines are references that keep the Lua object alive while Swift holds them.
///
///     let v: LuaValue = 42            // .integer(42), distinct from .number(42.0)
///     let s: LuaValue = "a\0b"        // strings keep embedded NULs
public enum LuaValue: Equatable, CustomStringConvertible {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case table(LuaRef)
    case function(LuaRef)
    case userdata(LuaRef)
    case thread(LuaRef)
    case lightUserdata(UnsafeMutableRawPointer?)

    /// The name Lua's `type()` gives.
    public var typeName: String {
        switch self {
        case .nil: return "nil"
        case .boolean: return "boolean"
        case .integer, .number: return "number"
        case .string: return "string"
        case .table: return "table"
        case .function: return "function"
        case .userdata, .lightUserdata: return "userdata"
        case .thread: return "thread"
        }
    }

    public var isNil: Bool { if case .nil = self { return true } else { return false } }

    /// Lua truthiness: everything but nil and false.
    public var isTruthy: Bool {
        switch self {
        case .nil, .boolean(false): return false
        default: return true
        }
    }

    public var intValue: Int? {
        switch self {
        case .integer(let i): return Int(exactly: i)
        case .number(let d): return Int(exactly: d)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }

    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .boolean(let b) = self { return b } else { return nil } }
    public var tableRef: LuaRef? { if case .table(let t) = self { return t } else { return nil } }

    public var description: String {
        switch self {
        case .nil: return "nil"
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let d): return LuaValue.format(d)
        case .string(let s): return s
        case .table(let r), .function(let r), .userdata(let r), .thread(let r):
            return "\(typeName): #\(r.reference)"
        case .lightUserdata(let p): return "userdata: \(String(describing: p))"
        }
    }

    /// Formats a float the way Lua 5.4 does (`%.14g`, and "1.0" rather than "1").
    public static func format(_ d: Double) -> String {
        if d.isNaN { return d.sign == .minus ? "-nan" : "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        var text = String(format: "%.14g", d)
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "n" || $0 == "i" }) { text += ".0" }
        return text
    }
}

extension LuaValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    public init(nilLiteral: ()) { self = .nil }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
}

extension LuaValue {
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Double) { self = .number(value) }
    public init(_ value: String) { self = .string(value) }
    public init(_ value: Bool) { self = .boolean(value) }
}

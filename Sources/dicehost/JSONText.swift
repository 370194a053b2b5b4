import DiceHost
import Foundation

/// The JSON the commands print (`--json` of odds, solve, sweep; the report's figures),
/// written by the package's one JSON writer, `JSONValue`: sorted keys, integers exact,
/// doubles and strings written as everywhere else (views, logs, server messages).
///
/// The commands build their figures as Swift dictionaries and arrays of plain values;
/// `value(_:)` turns such a tree into a `JSONValue`, and a value that is none of those
/// types is an error of the program, reported as `null` there rather than a lost line.
enum JSONText {
    /// Compact JSON with sorted keys, on one line.
    static func compact(_ object: Any) -> String { value(object).description }

    /// Indented JSON with sorted keys (two spaces a level, `"key" : value`), for a file a
    /// person may read.
    static func pretty(_ object: Any) -> String {
        var out = ""
        writePretty(value(object), indent: "", into: &out)
        return out
    }

    /// The tree as a `JSONValue`: Bool, the integer types, Double/Float, String, arrays,
    /// dictionaries keyed by String, nil and NSNull.
    static func value(_ object: Any) -> JSONValue {
        switch object {
        case let value as JSONValue: return value
        case let value as Bool: return .bool(value)
        case let value as Int: return .integer(Int64(value))
        case let value as Int64: return .integer(value)
        case let value as Int32: return .integer(Int64(value))
        case let value as UInt64: return Int64(exactly: value).map(JSONValue.integer) ?? .unsigned(value)
        case let value as UInt32: return .integer(Int64(value))
        case let value as Double: return .number(value)
        case let value as Float: return .number(Double(value))
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as [String: Any]: return .object(value.mapValues(Self.value))
        case let value as [Any]: return .array(value.map(Self.value))
        case is NSNull: return .null
        default:
            // An optional that holds nil arrives as Any; one that holds a value is unwrapped.
            let mirror = Mirror(reflecting: object)
            if mirror.displayStyle == .optional { return mirror.children.first.map { value($0.value) } ?? .null }
            return .null
        }
    }

    private static func writePretty(_ value: JSONValue, indent: String, into out: inout String) {
        let inner = indent + "  "
        switch value {
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                writePretty(item, indent: inner, into: &out)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case .object(let fields) where !fields.isEmpty:
            out += "{\n"
            let keys = fields.keys.sorted()
            for (i, key) in keys.enumerated() {
                out += inner + JSONValue.string(key).description + " : "
                writePretty(fields[key] ?? .null, indent: inner, into: &out)
                out += i == keys.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        default:
            out += value.description
        }
    }
}

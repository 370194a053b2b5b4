import Foundation

/// A JSON value as a client sent it: numbers stay whole or not, `true` stays a boolean.
enum JSONValue: Equatable, Decodable {
    case null, bool(Bool), integer(Int64), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
        else if let n = try? container.decode(Int64.self) { self = .integer(n) }
        else if let d = try? container.decode(Double.self) { self = d.isFinite && d == d.rounded() && abs(d) < 9.2e18 ? .integer(Int64(d)) : .number(d) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else if let a = try? container.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    static func parse(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// "a string", "a list", … for error messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "true/false"
        case .integer(let n): return "the number \(n)"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}

extension String {
    /// This text as a JSON string literal (quotes, backslashes and control characters escaped;
    /// U+2028/2029 too, so the text is safe inside a script).
    var jsonQuoted: String {
        var out = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0x7F {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

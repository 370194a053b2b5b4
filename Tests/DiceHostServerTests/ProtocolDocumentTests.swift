@testable import DiceHostServer
import Foundation
import Testing

/// docs/protocol.md and the server agree: the table of server messages lists every type
/// the server sends (`ServerMessage.Kind`) and no other, and the error codes it lists are
/// `ErrorCode`'s, all of them.
struct ProtocolDocumentTests {
    static let document: String = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/protocol.md").path
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }()

    /// The lines of the section under `heading` (to the next `## `).
    static func section(_ heading: String) -> [Substring] {
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "## " + heading }) else { return [] }
        let rest = lines[(start + 1)...]
        return Array(rest.prefix { !$0.hasPrefix("## ") })
    }

    static func matches(_ pattern: String, in text: some StringProtocol) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let text = String(text)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test func theServerMessageTableListsEveryTypeTheServerSends() {
        let rows = Self.section("Server → client").filter { $0.hasPrefix("| `{\"type\":") }
        let documented = Set(rows.flatMap { Self.matches(#"^\| `\{"type":"([a-z-]+)""#, in: $0) })
        #expect(!documented.isEmpty, "docs/protocol.md has a table of server messages")
        let sent = Set(ServerMessage.Kind.allCases.map(\.rawValue))
        #expect(documented == sent, "documented but not sent: \(documented.subtracting(sent).sorted()); sent but not documented: \(sent.subtracting(documented).sorted())")
    }

    @Test func theErrorCodesSectionListsEveryCodeAndNoOther() {
        // The codes are the backquoted words outside the parentheses that explain them.
        var text = Self.section("Error codes").joined(separator: "\n")
        while let open = text.firstIndex(of: "("), let close = text[open...].firstIndex(of: ")") { text.removeSubrange(open...close) }
        let documented = Set(Self.matches("`([a-z-]+)`", in: text))
        let codes = Set(ErrorCode.allCases.map(\.rawValue))
        #expect(documented == codes, "documented but not in ErrorCode: \(documented.subtracting(codes).sorted()); in ErrorCode but not documented: \(codes.subtracting(documented).sorted())")
    }

    @Test func everyCodeTheLimitsTableNamesIsAnErrorCode() {
        let rows = Self.section("Limits, refusals and close codes").filter { $0.hasPrefix("| `") }
        let named = Set(rows.compactMap { $0.split(separator: "|").last }.flatMap { Self.matches("`([a-z-]+)`", in: $0) })
        #expect(!named.isEmpty)
        let unknown = named.subtracting(ErrorCode.allCases.map(\.rawValue))
        #expect(unknown.isEmpty, "codes in the limits table that the server never sends: \(unknown.sorted())")
    }
}

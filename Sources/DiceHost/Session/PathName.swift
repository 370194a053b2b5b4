/// A path's folder and last component, read as the system reads them, in plain Swift.
///
/// Why not `NSString`: on Linux (Swift 6.3.1's Foundation) `deletingLastPathComponent`
/// and `lastPathComponent` trap (SIGILL) on a relative path whose first component is one
/// character - "a", "a/", "é", " " - which any user may type as a file name.
///
///     PathName.folder(of: "rules/tests/x.txt")   // "rules/tests"
///     PathName.folder(of: "x.txt")               // ""
///     PathName.lastComponent(of: "rules/tests/") // "tests"
enum PathName {
    /// The path without its trailing slashes ("/" stays "/").
    private static func trimmed(_ path: String) -> Substring {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        return text
    }

    /// The folder part: "a/b/c" → "a/b", "a" → "", "/a" → "/", "a//b/" → "a", "/" → "/".
    static func folder(of path: String) -> String {
        let text = trimmed(path)
        guard let slash = text.lastIndex(of: "/") else { return "" }
        var head = text[..<slash]
        while head.hasSuffix("/") { head = head.dropLast() }
        return head.isEmpty ? "/" : String(head)
    }

    /// The last component: "a/b/c" → "c", "a/b/" → "b", "/" → "/", "" → "".
    static func lastComponent(of path: String) -> String {
        let text = trimmed(path)
        guard text != "/", let slash = text.lastIndex(of: "/") else { return String(text) }
        return String(text[text.index(after: slash)...])
    }
}

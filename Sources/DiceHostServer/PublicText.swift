import Foundation

/// What a client may read of the server's own errors: the rules folder is taken out of
/// every path (a rule script is named by its file name, `snap.lua:12:`), so no message
/// shows where the server keeps its files.
enum PublicText {
    static func hidingPaths(_ text: String, rulesDirectory: String) -> String {
        var out = text
        let given = (rulesDirectory as NSString).standardizingPath
        let absolute = URL(fileURLWithPath: rulesDirectory).standardizedFileURL.resolvingSymlinksInPath().path
        for folder in Set([rulesDirectory, given, absolute, URL(fileURLWithPath: rulesDirectory).standardizedFileURL.path]).sorted(by: { $0.count > $1.count })
            where !folder.isEmpty && folder != "/" {
            out = out.replacingOccurrences(of: folder.hasSuffix("/") ? folder : folder + "/", with: "")
        }
        return out
    }
}

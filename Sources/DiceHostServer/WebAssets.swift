import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The browser table: plain HTML, CSS and JavaScript files shipped with the server
/// (Sources/DiceHostServer/Web, copied as the target's resources), read once at start.
struct WebAssets: Sendable {
    static let files: [(name: String, type: String)] = [
        ("index.html", "text/html; charset=utf-8"), ("app.js", "text/javascript; charset=utf-8"), ("style.css", "text/css; charset=utf-8"),
        ("pixels.js", "text/javascript; charset=utf-8"),
        ("table.js", "text/javascript; charset=utf-8"),
        ("moves.js", "text/javascript; charset=utf-8"),
        ("favicon.svg", "image/svg+xml"),
        ("reconnect.js", "text/javascript; charset=utf-8"),
    ]
    let contents: [String: (type: String, bytes: [UInt8])]

    init() {
        var found: [String: (String, [UInt8])] = [:]
        if let directory = Self.directory() {
            for file in Self.files {
                if let data = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(file.name)) {
                    found[file.name] = (file.type, Array(data))
                }
            }
        }
        contents = found
    }

    /// Where the files are: $DICEHOST_WEB, the resources bundle beside the program, or
    /// the source folder the program was built from.
    static func directory() -> String? {
        var candidates: [String] = []
        if let given = ProcessInfo.processInfo.environment["DICEHOST_WEB"] { candidates.append(given) }
        let programFolder = Bundle.main.bundleURL.path
        candidates.append((programFolder as NSString).appendingPathComponent("DiceHost_DiceHostServer.resources/Web"))
        candidates.append((programFolder as NSString).appendingPathComponent("DiceHost_DiceHostServer.bundle/Contents/Resources/Web"))
        candidates.append((("\(#filePath)" as NSString).deletingLastPathComponent as NSString).appendingPathComponent("Web"))
        return candidates.first { FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("index.html")) }
    }

    func addRoutes(to router: Router<ServerRequestContext>) {
        for file in Self.files {
            let path = file.name == "index.html" ? "/" : "/\(file.name)"
            router.get(RouterPath(stringLiteral: path)) { _, _ -> Response in self.response(file.name) }
        }
    }

    func response(_ name: String) -> Response {
        guard let (type, bytes) = contents[name] else {
            return Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "the web files were not found (set DICEHOST_WEB to the Web folder)\n")))
        }
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

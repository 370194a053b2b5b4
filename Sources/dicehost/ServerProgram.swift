import Foundation

/// Finds and runs dicehost-server, the program beside dicehost's own executable that
/// `dicehost serve` runs.
enum ServerProgram {
    static let name = "dicehost-server"

    /// dicehost's own executable with links resolved (an installed `bin/dicehost` is a
    /// link into `lib/dicehost/`, where dicehost-server is installed too).
    static func ownExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 { return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return Bundle.main.executableURL?.resolvingSymlinksInPath().path
    }

    /// The path dicehost-server is expected at.
    static func path() -> String? {
        ownExecutable().map { (($0 as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name) }
    }

    /// Replaces this process with dicehost-server given `arguments`; returns only when
    /// that cannot be done, with what to do about it.
    static func replaceProcess(arguments: [String]) -> String {
        guard let path = path() else {
            return "serve: cannot find dicehost's own executable, so not \(name) beside it either"
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            return "serve needs \(path), which is not built: in the dicehost folder run 'make server' "
                + "(swift build --product \(name); several minutes: the server stack), then 'make install' again if you installed dicehost"
        }
        fflush(stdout)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        argv.forEach { free($0) }
        return "serve: cannot run \(path): \(reason)"
    }
}

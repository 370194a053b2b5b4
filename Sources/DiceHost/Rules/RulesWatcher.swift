import Foundation

/// Notices when a game's rule script, or any file it `require`d, is saved. It compares
/// each file's modification time, size and inode (editors that save by renaming a new
/// file into place change the inode) and is polled: call `changedFiles()` every 100 ms
/// or so and a save is seen within that time. Polling works the same on every file
/// system and platform, including network mounts that inotify does not see.
public final class RulesWatcher {
    struct Signature: Equatable {
        var modified: TimeInterval
        var size: UInt64
        var inode: UInt64
    }

    private var signatures: [String: Signature?] = [:]

    public init(game: Game) { watch(game) }

    /// Watches the files `game` loaded: its rule script and the modules it required.
    public func watch(_ game: Game) {
        signatures = [:]
        for path in [game.sourcePath] + game.lua.loadedModulePaths { signatures[path] = Self.signature(of: path) }
    }

    public var watchedFiles: [String] { signatures.keys.sorted() }

    /// The files saved since the last call (or since `watch`).
    public func changedFiles() -> [String] {
        var changed: [String] = []
        for (path, old) in signatures {
            let now = Self.signature(of: path)
            if now != old {
                signatures[path] = now
                changed.append(path)
            }
        }
        return changed.sorted()
    }

    static func signature(of path: String) -> Signature? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return Signature(modified: (attributes[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate ?? 0,
                         size: (attributes[.size] as? NSNumber)?.uint64Value ?? 0,
                         inode: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0)
    }
}

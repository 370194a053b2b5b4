import DiceHost
import Foundation

/// Hot reload (`serve --watch`): a saved rules file is reloaded in the room, the game kept.
extension Room {
    /// With `--watch`: reloads the rules if their file (or a module) was saved; every
    /// client is told, whether the reload took or not.
    func pollRules() {
        guard let game, let watcher, !closed else { return }
        let changed = watcher.changedFiles()
        guard !changed.isEmpty else { return }
        let files = changed.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        do {
            try catchUpClock()
            declaredMovesCache = nil
            try applyRoomInput(GameInput(.reload), to: game)
            watcher.watch(game)
            broadcast(message(.reloaded, ["files": .string(files), "rules": .string(game.rules.name)]))
            broadcastPending(cause: ServerMessage.object([("input", .string("reload"))]))
        } catch {
            broadcast(errorMessage(.reloadFailed, publicText("\(files) did not reload, the old rules still run: \(error)")))
            broadcastPending(cause: nil)
        }
    }
}

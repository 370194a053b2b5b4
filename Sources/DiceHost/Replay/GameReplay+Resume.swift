import Foundation

extension GameReplay {
    /// A game rebuilt from its log to be played on: a server that restarts replays each
    /// stored room this way. `game` is set only when every logged input gave the logged
    /// events again (and nothing stopped the replay); otherwise `report` says where the
    /// replay parted from the log.
    public struct Resumed {
        public var report: GameReport
        public var game: Game?
    }

    /// Replays `logged` and hands back the game it ends in, to go on with. The rules file
    /// is the header's (`rules`), its SHA-256 compared by the report's notes; whatever
    /// the hash, the game is handed back only when the events match, so a changed rules
    /// file that plays the same is resumed and one that plays differently is not.
    public static func resume(_ logged: GameLog.LoggedGame, makeGame: (GameLog.Header, String) throws -> Game = defaultGame) -> Resumed {
        var replayer = GameReplayer(header: logged.header, line: logged.headerLine, folder: logged.folder, rules: nil, makeGame: makeGame)
        for (line, entry) in logged.entries { replayer.replay(entry, line: line) }
        let report = replayer.report
        return Resumed(report: report, game: report.matched ? replayer.game : nil)
    }
}

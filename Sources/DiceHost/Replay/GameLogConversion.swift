import Foundation

/// Rewrites a game log of format 1 (inputs as command lines) in format 2 (inputs typed):
/// each game is replayed, and each command line that the REPL reads as an input is
/// stored as the input it was, with the events it caused checked against the log. A
/// log that does not replay as it was logged is left as it was: the error names the line.
///
///     let converted = try GameLogConversion.convert("old.jsonl")   // games rewritten
public enum GameLogConversion {
    /// Converts the log file at `path` in place (written beside it, then renamed over it);
    /// returns how many of its games were of format 1. A file all of format 2 is not
    /// written. Throws `GameLog.FormatError` naming the line that stopped it.
    @discardableResult
    public static func convert(_ path: String, makeGame: (GameLog.Header, String) throws -> Game = GameReplay.defaultGame) throws -> Int {
        let games = try GameLog.read(path)
        guard games.contains(where: { $0.header.dicehost_log < GameLog.version }) else { return 0 }
        var lines: [String] = []
        for game in games {
            lines += try convert(game, file: path, makeGame: makeGame)
        }
        do {
            var writer = SafeFileWriter()
            writer.force = true
            try writer.write(lines.joined(separator: "\n") + "\n", to: path)
        } catch {
            throw GameLog.FormatError(file: path, line: 0, message: "cannot write the converted log: \(error)")
        }
        return games.filter { $0.header.dicehost_log < GameLog.version }.count
    }

    /// The lines of one game in format 2 (a game already of format 2 as it is).
    public static func convert(_ game: GameLog.LoggedGame, file: String,
                               makeGame: (GameLog.Header, String) throws -> Game = GameReplay.defaultGame) throws -> [String] {
        var header = game.header
        let old = header.dicehost_log < GameLog.version
        header.dicehost_log = GameLog.version
        var lines = [GameLog.line(header)]
        guard old else { return lines + game.entries.map { GameLog.line($0.entry) } }
        var replayer = GameReplayer(header: game.header, line: game.headerLine, folder: game.folder, rules: nil, makeGame: makeGame)
        if let failure = replayer.report.failure { throw GameLog.FormatError(file: file, line: game.headerLine, message: "cannot convert the game: \(failure)") }
        for (line, entry) in game.entries {
            let converted = replayer.replay(entry, line: line)
            if let divergence = replayer.report.divergence {
                throw GameLog.FormatError(file: file, line: divergence.line,
                                          message: "cannot convert the log: input \(divergence.input) (\(divergence.command)) does not replay as it was logged; the file is left as it was")
            }
            // After a logged `load` the game cannot be followed: the rest stays as commands.
            lines.append(GameLog.line(converted ?? entry))
        }
        return lines
    }
}

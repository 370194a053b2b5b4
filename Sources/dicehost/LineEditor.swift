import CEditLine
import Foundation
import SystemPackage

/// Line editing for a terminal, through libedit's readline interface: arrow keys,
/// history kept across sessions in ~/.dicehost_history, and tab completion of the
/// commands and the rules' action names. It uses the callback interface, fed from a
/// poll loop, so the REPL can watch files between keystrokes.
final class LineEditor {
    /// The words tab completes (commands, actions, player names); set before each line.
    nonisolated(unsafe) static var words: [String] = []
    /// The words that may follow the text before the word being completed (an action's
    /// declared argument choices); nil or empty: `words`.
    nonisolated(unsafe) static var wordsAfter: ((String) -> [String])?
    nonisolated(unsafe) private static var finished = false
    nonisolated(unsafe) private static var finishedLine: String?
    nonisolated(unsafe) private static var matches: [String] = []
    nonisolated(unsafe) private static var candidates: [String] = []

    let historyFile: String

    init() {
        historyFile = FilePath(ProcessInfo.processInfo.environment["HOME"] ?? NSTemporaryDirectory()).appending(".dicehost_history").string
        rl_readline_name = UnsafePointer(strdup("dicehost"))
        rl_catch_signals = 0
        // libedit decodes the prompt (die glyphs, "·") with the locale's multibyte rules.
        setlocale(LC_CTYPE, "")
        if String(cString: nl_langinfo(nl_item(CODESET))) != "UTF-8" { setlocale(LC_CTYPE, "C.UTF-8") }
        _ = rl_initialize()
        using_history()
        stifle_history(1000)
        _ = read_history(historyFile)
        rl_attempted_completion_function = { text, start, _ in
            rl_attempted_completion_over = 1
            let before = rl_line_buffer.map { String(decoding: Data(bytes: $0, count: Int(max(start, 0))), as: UTF8.self) } ?? ""
            LineEditor.candidates = before.trimmingCharacters(in: .whitespaces).isEmpty ? LineEditor.words
                : (LineEditor.wordsAfter?(before)).flatMap { $0.isEmpty ? nil : $0 } ?? LineEditor.words
            return rl_completion_matches(text) { text, state in
                if state == 0 {
                    let prefix = text.map { String(cString: $0) } ?? ""
                    LineEditor.matches = LineEditor.candidates.filter { $0.hasPrefix(prefix) }.reversed()
                }
                guard let next = LineEditor.matches.popLast() else { return nil }
                return strdup(next)
            }
        }
    }

    /// Reads one line with `prompt`, calling `idle` every 100 ms while the user types
    /// nothing; `redraw` after idle work that printed (the prompt and typed text return).
    func next(prompt: String, idle: () -> Bool) -> LineInput.Event {
        LineEditor.finished = false
        LineEditor.finishedLine = nil
        // Colour codes take no columns: libedit skips what lies between \u{01} and \u{02}.
        let marked = prompt.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "\u{01}$0\u{02}", options: .regularExpression)
        rl_callback_handler_install(marked) { line in
            LineEditor.finished = true
            LineEditor.finishedLine = line.map { String(cString: $0) }
            free(line)
            rl_callback_handler_remove()
        }
        defer { if !LineEditor.finished { rl_callback_handler_remove() } }
        while !LineEditor.finished {
            if Interrupts.takePending() { return .interrupted }
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 { if errno == EINTR { continue }; return .end }
            if ready == 0 {
                if idle() { rl_forced_update_display() }
                continue
            }
            // The terminal went away (a window closed, an ssh connection dropped): the
            // read would fail at once, libedit would not finish the line, and the loop
            // would spin on a dead terminal for ever. End as at Ctrl-D.
            if Self.terminalIsGone(descriptor) { return .end }
            rl_callback_read_char()
        }
        guard let line = LineEditor.finishedLine else { return .end }
        if !line.trimmingCharacters(in: .whitespaces).isEmpty {
            _ = add_history(line)
            _ = write_history(historyFile)
        }
        return .line(line)
    }

    /// Whether a terminal that poll says is ready has hung up, failed, or has nothing to
    /// read (in the raw mode libedit sets, ready with no byte waiting is end of file).
    static func terminalIsGone(_ polled: pollfd) -> Bool {
        if polled.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return true }
        var waiting: Int32 = 0
        guard ioctl(STDIN_FILENO, UInt(FIONREAD), &waiting) == 0 else { return true }
        return waiting <= 0
    }
}

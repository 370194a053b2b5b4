/// An error from loading or running Lua code, in a form a person can act on:
/// what kind of failure, the message, and the script file and line where it happened.
public struct LuaError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The script does not parse.
        case syntax
        /// The script raised an error while running.
        case runtime
        /// The state reached its memory cap.
        case memory
        /// The call ran past its instruction budget.
        case instructionBudget = "instruction budget"
        /// The host asked the running script to stop (Ctrl-C).
        case interrupted
        /// A watched call made no progress and its watchdog stopped it, or one of its
        /// steps took long enough to have passed the instruction budget.
        case stalled
        /// Lua failed while handling another error.
        case errorInHandler = "error in error handler"
    }

    public var kind: Kind
    /// The message without its "file:line: " prefix.
    public var message: String
    /// The script file (the chunk name) the error points at, when Lua knows one.
    public var file: String?
    public var line: Int?
    /// Lua's "stack traceback:" text, when the error happened while running.
    public var traceback: String?
    /// The script raised it with `error(message, 0)`: a message for the player that
    /// refuses an input, not a failure of the rules.
    public var isRefusal = false

    public init(kind: Kind, message: String, file: String? = nil, line: Int? = nil, traceback: String? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
        self.traceback = traceback
    }

    /// "file:line: message", the form Lua itself uses.
    public var description: String {
        switch (file, line) {
        case let (file?, line?): return "\(file):\(line): \(message)"
        case let (file?, nil): return "\(file): \(message)"
        default: return message
        }
    }
}

extension LuaError {
    /// Builds an error from Lua's text, splitting a leading "file:line: " into fields;
    /// when the message has none, the first Lua frame of the traceback supplies them.
    init(kind: Kind, luaMessage: String, traceback: String?, messageIsString: Bool = true) {
        // The host's own chunks load without line numbers: Lua then prefixes an error
        // raised in them "dicehost-runtime:-1: ". It is located at the script's line, as
        // errors of those chunks always were.
        if let (_, rest) = Self.splitHostLocationWithoutLine(luaMessage),
           let traceback, let (file, line) = Self.firstScriptFrame(traceback) {
            self.init(kind: kind, message: rest, file: file, line: line, traceback: traceback)
            return
        }
        if let (file, line, rest) = Self.splitLocation(luaMessage) {
            self.init(kind: kind, message: rest, file: file, line: line, traceback: traceback)
            // An error inside the host's own Lua wrappers is reported at the script's line.
            if file.hasPrefix("dicehost-"), let traceback, let (scriptFile, scriptLine) = Self.firstScriptFrame(traceback) {
                self.file = scriptFile
                self.line = scriptLine
            }
        } else if messageIsString, let traceback, Self.raisedByErrorWithoutPosition(traceback) {
            // error("msg", 0) (or a level naming no Lua line): no position, as in Lua.
            self.init(kind: kind, message: luaMessage, traceback: traceback)
            isRefusal = kind == .runtime
        } else if let traceback, let (file, line) = Self.firstScriptFrame(traceback) {
            self.init(kind: kind, message: luaMessage, file: file, line: line, traceback: traceback)
        } else {
            self.init(kind: kind, message: luaMessage, traceback: traceback)
        }
    }

    /// "rules/race.lua:14: boom" → ("rules/race.lua", 14, "boom").
    static func splitLocation(_ text: Substring) -> (String, Int, String)? {
        var search = text.startIndex
        while let colon = text[search...].firstIndex(of: ":") {
            let afterColon = text.index(after: colon)
            let digits = text[afterColon...].prefix(while: \.isASCII).prefix(while: \.isNumber)
            if !digits.isEmpty, let line = Int(digits), digits.endIndex < text.endIndex,
               text[digits.endIndex] == ":" {
                let file = String(text[..<colon])
                if !file.isEmpty, !file.contains("\n") {
                    var rest = text[text.index(after: digits.endIndex)...]
                    if rest.first == " " { rest = rest.dropFirst() }
                    return (file, line, String(rest))
                }
            }
            search = afterColon
            if text[text.startIndex..<colon].contains("\n") { return nil }
        }
        return nil
    }

    /// "dicehost-runtime:-1: boom" → ("dicehost-runtime", "boom"): an error in one of
    /// the host's chunks, which carry no line numbers.
    static func splitHostLocationWithoutLine(_ text: String) -> (String, String)? {
        guard text.hasPrefix("dicehost-"), let marker = text.range(of: ":-1: "),
              !text[..<marker.lowerBound].contains(where: { $0 == "\n" || $0 == ":" }) else { return nil }
        return (String(text[..<marker.lowerBound]), String(text[marker.upperBound...]))
    }

    static func splitLocation(_ text: String) -> (String, Int, String)? {
        splitLocation(text[...])
    }

    /// Whether the error was raised by Lua's `error` itself (the traceback's first frame)
    /// with a message that carries no position: the script asked for none (level 0).
    /// Errors raised by host functions (also C frames) are located as before.
    static func raisedByErrorWithoutPosition(_ traceback: String) -> Bool {
        guard let first = traceback.split(separator: "\n").dropFirst().first else { return false }
        return first.drop(while: { $0 == "\t" || $0 == " " }) == "[C]: in function 'error'"
    }

    /// The first "\tfile:line: in …" line of a traceback that is not a C function.
    static func firstScriptFrame(_ traceback: String) -> (String, Int)? {
        for line in traceback.split(separator: "\n").dropFirst() {
            let frame = line.drop(while: { $0 == "\t" || $0 == " " })
            guard !frame.hasPrefix("[C]"), let (file, number, _) = splitLocation(frame),
                  file != LuaState.preludeChunkName, !file.hasPrefix("dicehost-") else { continue }
            return (file, number)
        }
        return nil
    }
}

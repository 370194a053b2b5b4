/// The lines of a compiled chunk that hold code, read from its bytecode (`lua_dump`
/// with debug information): Lua keeps the line of every instruction of every nested
/// function there, and the C API offers no other way to reach nested functions
/// without running them. The format is Lua 5.4's (ldump.c); anything else is refused.
struct LuaBytecodeLines {
    struct Malformed: Error {}

    private let bytes: [UInt8]
    private var at = 0
    private var integerSize = 8, numberSize = 8, instructionSize = 4
    private(set) var lines: Set<Int> = []

    /// The executable lines of the chunk `bytes` is the dump of. The last instruction
    /// of each function (the `return` Lua adds at its `end`) does not count by itself:
    /// after an explicit `return` it never runs, and would read as a line never run.
    static func lines(ofDump bytes: [UInt8]) throws -> Set<Int> {
        var reader = LuaBytecodeLines(bytes: bytes)
        try reader.header()
        _ = try reader.byte()  // upvalues of the main closure
        try reader.function()
        return reader.lines
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func byte() throws -> UInt8 {
        guard at < bytes.count else { throw Malformed() }
        defer { at += 1 }
        return bytes[at]
    }

    private mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= bytes.count - at else { throw Malformed() }
        at += count
    }

    /// ldump.c's dumpSize: 7 bits a byte, most significant first, the last byte marked.
    private mutating func size() throws -> Int {
        var value = 0
        while true {
            let b = try byte()
            guard value < Int.max >> 8 else { throw Malformed() }
            value = value << 7 | Int(b & 0x7F)
            if b & 0x80 != 0 { return value }
        }
    }

    private mutating func string() throws {
        let size = try size()
        if size > 0 { try skip(size - 1) }
    }

    private mutating func header() throws {
        guard bytes.starts(with: [0x1B, 0x4C, 0x75, 0x61]) else { throw Malformed() }
        try skip(4)
        guard try byte() == 0x54, try byte() == 0 else { throw Malformed() }  // version 5.4, official format
        try skip(6)  // LUAC_DATA
        instructionSize = Int(try byte())
        integerSize = Int(try byte())
        numberSize = Int(try byte())
        try skip(integerSize + numberSize)  // LUAC_INT, LUAC_NUM
    }

    private mutating func function() throws {
        try string()  // source
        let lineDefined = try size()
        _ = try size()  // last line defined
        _ = try byte()  // parameters
        let isVararg = try byte() != 0
        _ = try byte()  // stack size
        let codeCount = try size()
        guard codeCount <= bytes.count else { throw Malformed() }
        try skip(codeCount * instructionSize)
        for _ in 0..<(try size()) {
            switch try byte() {
            case 0, 1, 17: break                     // nil, false, true
            case 3: try skip(integerSize)            // integer
            case 19: try skip(numberSize)            // float
            case 4, 20: try string()                 // short and long strings
            default: throw Malformed()
            }
        }
        try skip(3 * (try size()))  // upvalues: in stack, index, kind
        for _ in 0..<(try size()) { try function() }
        // Debug information: relative line of each instruction, then absolute lines.
        let lineInfoCount = try size()
        guard lineInfoCount <= bytes.count - at else { throw Malformed() }
        let lineInfo = bytes[at..<(at + lineInfoCount)].map { Int(Int8(bitPattern: $0)) }
        at += lineInfoCount
        var absolute: [Int: Int] = [:]
        for _ in 0..<(try size()) {
            let pc = try size()
            absolute[pc] = try size()
        }
        for _ in 0..<(try size()) { try string(); _ = try size(); _ = try size() }  // locals
        for _ in 0..<(try size()) { try string() }  // upvalue names
        // As ldebug.c's collectvalidlines: a vararg function's first instruction
        // (VARARGPREP) fires no line event.
        var line = lineDefined
        var perInstruction: [Int] = []
        perInstruction.reserveCapacity(lineInfoCount)
        for pc in 0..<lineInfoCount {
            if lineInfo[pc] == -0x80 {
                guard let base = absolute[pc] else { throw Malformed() }
                line = base
            } else {
                line += lineInfo[pc]
            }
            perInstruction.append(line)
        }
        let first = isVararg ? 1 : 0
        let last = perInstruction.count - 1
        guard first < last else { return }
        for pc in first..<last { lines.insert(perInstruction[pc]) }
    }
}

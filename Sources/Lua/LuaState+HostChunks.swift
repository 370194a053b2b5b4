import CLua
import CLuaSupport
import Foundation

/// The host's own Lua chunks (the prelude, the game runtime): compiled once per process
/// and loaded into each new state as that compile's bytes without debug info. Their line
/// numbers and local names were about 7 KiB of every state, each served idle room's
/// among them. A rule script never loads this way: it is text only and keeps its lines
/// for errors, tracebacks and coverage.
///
/// Without debug info an error raised inside a host chunk reads "dicehost-runtime:-1: …"
/// (LuaError locates it at the script's line, as it did "dicehost-runtime:123: …"), a
/// traceback shows its frames without a line, and Lua names its locals "?" in messages
/// ("attempt to index a nil value" loses "(local 'p')"). What a designer reads names the
/// script's line as before: `error(…, 2)`, the trampoline's `clua_where_script` and the
/// allocator's and budget's notes skip "dicehost-…" frames, which never counted.
enum HostChunkCache {
    private struct Compiled { let source: [UInt8]; let bytes: [UInt8] }
    private static let lock = NSLock()
    nonisolated(unsafe) private static var compiled: [String: Compiled] = [:]

    /// The stripped dump of `source` compiled by this process under `chunkName`, if any.
    static func bytes(for chunkName: String, source: [UInt8]) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = compiled[chunkName], entry.source == source else { return nil }
        return entry.bytes
    }

    /// Forgets every compile, so the next state compiles again (for tests).
    static func forgetAll() {
        lock.lock()
        defer { lock.unlock() }
        compiled.removeAll()
    }

    static func store(_ bytes: [UInt8], for chunkName: String, source: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        compiled[chunkName] = Compiled(source: source, bytes: bytes)
    }
}

extension LuaState {
    /// Compiles one of the host's own chunks (its chunk name starts "dicehost-") with the
    /// sandbox as its environment, as `load(_:chunkName:)` does, but without its debug
    /// info: the first state of the process compiles the text and keeps the stripped
    /// dump; every state (that one too) loads the dump in binary mode. The bytes come
    /// from this process's own compile of this very source, never from a file.
    public func loadHostChunk(_ source: String, chunkName: String) throws -> LuaRef {
        guard chunkName.hasPrefix("dicehost-") else {
            throw LuaError(kind: .syntax, message: "only the host's own chunks (named dicehost-…) load without debug info", file: chunkName)
        }
        let text = Array(source.utf8)
        let bytes: [UInt8]
        if let cached = HostChunkCache.bytes(for: chunkName, source: text) {
            bytes = cached
        } else {
            bytes = try compileStripped(text, chunkName: chunkName)
            HostChunkCache.store(bytes, for: chunkName, source: text)
        }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        context.pointee.memory_refused = 0
        chunkNames.insert(chunkName)
        let status = bytes.withUnsafeBufferPointer {
            clua_load_host_binary(L, $0.baseAddress, $0.count, "@" + chunkName)
        }
        guard status == LUA_OK else {
            let message = string(at: -1) ?? "cannot load \(chunkName)"
            throw LuaError(kind: status == LUA_ERRMEM ? .memory : .syntax, message: message, file: chunkName)
        }
        clua_getref(L, sandboxReference)
        lua_setupvalue(L, -2, 1) // _ENV: the sandbox, not the real globals
        return makeRef(at: -1)
    }

    /// Compiled in a scratch state, never in this one: the state that compiled would
    /// otherwise hold more objects and serials than every later state of the process.
    private func compileStripped(_ text: [UInt8], chunkName: String) throws -> [UInt8] {
        var length = 0
        var message = [CChar](repeating: 0, count: 512)
        let dump = text.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                clua_compile_stripped($0.baseAddress, $0.count, "@" + chunkName, &length, &message, message.count)
            }
        }
        guard let dump else {
            throw LuaError(kind: .syntax, message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                           file: chunkName)
        }
        defer { clua_free_dump(dump) }
        return Self.namingSource(Array(UnsafeBufferPointer(start: dump, count: length)), "@" + chunkName)
    }

    /// A stripped dump names no source, so its functions would load as "?"; the main
    /// function's source (nested ones inherit it) is put back, so frames and the
    /// allocator's and budget's location notes still see a "dicehost-…" chunk. The
    /// header is Lua 5.4's (ldump.c): signature, version, format, LUAC_DATA, three
    /// sizes, a test integer and a test number, then the main closure's upvalue count
    /// and the source, a size of 0 (one byte, 0x80) when stripped. Anything else is
    /// left as it is.
    static func namingSource(_ dump: [UInt8], _ source: String) -> [UInt8] {
        guard dump.count > 15, dump.starts(with: [0x1B, 0x4C, 0x75, 0x61, 0x54, 0x00]) else { return dump }
        let at = 15 + Int(dump[13]) + Int(dump[14]) + 1
        let name = Array(source.utf8)
        guard at < dump.count, dump[at] == 0x80, name.count + 1 < 0x80 else { return dump }
        return Array(dump[..<at]) + [UInt8(name.count + 1) | 0x80] + name + Array(dump[(at + 1)...])
    }
}

import CLua
import CLuaSupport
import Foundation

/// One sandboxed Lua 5.4 interpreter: load rule scripts, call their functions under a
/// memory cap and an instruction budget, and expose Swift functions to them.
///
///     let lua = try LuaState()
///     let chunk = try lua.load("return 1 + 2", chunkName: "sum.lua")
///     let results = try lua.call(.function(chunk))      // [.integer(3)]
///
/// A state is not thread-safe: use it from one thread at a time (one state per worker).
/// Every call into Lua is a protected call with a traceback handler; errors come back
/// as `LuaError` values naming the script file and line, and the state stays usable.
public final class LuaState {
    let L: OpaquePointer
    let context: UnsafeMutablePointer<clua_context>
    var hostFunctions: [HostFunction] = []
    var sandboxReference: Int32 = LUA_NOREF
    var loadedModulesReference: Int32 = LUA_NOREF
    var rawToStringReference: Int32 = LUA_NOREF
    var rawNextReference: Int32 = LUA_NOREF

    /// Where `require` looks for modules: the folder of the script loaded first.
    public var moduleDirectory: String?
    /// How modules found in `moduleDirectory` are named in messages (their chunk names):
    /// this folder instead, e.g. the folder as a rule test names it ("..") so an error
    /// reads the same whatever folder the host runs in. Nil: `moduleDirectory`.
    public var moduleChunkDirectory: String?
    /// Every chunk name loaded, to restore names Lua shortened to "...tail" (it keeps
    /// only 60 characters of a chunk name in messages).
    var chunkNames: Set<String> = []
    /// Files `require` has loaded, in order (a watcher reloads when one changes).
    public internal(set) var loadedModulePaths: [String] = []
    /// The thread a `LuaWatchdog` watches this state's `callWatched` calls on.
    var watchingThread: pthread_t?
    /// Where line counts go (`LuaCoverage.current` when the state was made), and the
    /// file each chunk name was read from (only those count).
    var coverage: LuaCoverage?
    var sourceFiles: [String: String] = [:]
    /// Receives what scripts `print`; by default it goes to standard output. It may
    /// throw (a host that keeps what is printed refuses past its memory limit): the
    /// error is raised in the script at the `print`.
    public var output: (String) throws -> Void = { print($0) }

    /// The resources this state may use; changing them applies from the next call.
    public var limits: LuaLimits {
        didSet { context.pointee.memory_limit = Self.cap(limits.memoryBytes) }
    }

    public init(limits: LuaLimits = .default) throws {
        guard let L = clua_newstate(Self.cap(limits.memoryBytes)) else {
            throw LuaError(kind: .memory, message: "cannot create a Lua state: out of memory")
        }
        self.L = L
        self.context = clua_ctx(L)
        self.limits = limits
        context.pointee.dispatch = { L, function in
            guard let L, let function else { return CLUA_RAISE }
            // The state keeps the function alive; borrowing it avoids a retain per call.
            return Unmanaged<HostFunction>.fromOpaque(function)._withUnsafeGuaranteedRef { $0.run(on: L) }
        }
        clua_random_seed(context, 0)
        try installSandbox()
        startCoverage()
    }

    deinit {
        finishCoverage()
        clua_close(L)
    }

    /// Used by `LuaRef`; the main thread of a live state.
    var mainThread: OpaquePointer? { L }

    private static func cap(_ bytes: Int) -> Int { max(bytes, 1 << 16) }

    // MARK: Loading

    /// Compiles a text chunk (binary chunks are refused) whose errors will read
    /// "chunkName:line: …", with the sandbox as its environment.
    public func load(_ source: String, chunkName: String) throws -> LuaRef {
        var source = source
        return try source.withUTF8 { buffer in
            try loadFunction(buffer, chunkName: chunkName)
        }
    }

    /// Compiles a chunk from its bytes as they are (Lua strings are bytes: a byte that
    /// is not UTF-8 stays that byte).
    public func load(bytes source: [UInt8], chunkName: String) throws -> LuaRef {
        try source.withUnsafeBufferPointer { try loadFunction($0, chunkName: chunkName) }
    }

    /// Reads and compiles a script file; its path is the chunk name.
    public func load(file path: String) throws -> LuaRef {
        noteSourceFile(chunkName: path, path: path)
        let data: Data
        do { data = try LuaSourceFile.read(path, limit: limits.memoryBytes) } catch {
            throw LuaError(kind: .syntax, message: "\(error)", file: path)
        }
        return try data.withUnsafeBytes { raw in
            try loadFunction(UnsafeBufferPointer(start: raw.bindMemory(to: UInt8.self).baseAddress, count: raw.count),
                             chunkName: path)
        }
    }

    /// Loads and runs a chunk, returning what it returns.
    @discardableResult
    public func run(_ source: String, chunkName: String) throws -> [LuaValue] {
        try call(.function(load(source, chunkName: chunkName)))
    }

    /// Leaves the compiled function on the stack of `thread` and returns the status.
    func loadChunk(_ thread: OpaquePointer, _ buffer: UnsafeBufferPointer<UInt8>, chunkName: String) -> Int32 {
        chunkNames.insert(chunkName)
        // An empty chunk has no base address; Lua reads no bytes of it then.
        let status = buffer.withMemoryRebound(to: CChar.self) { chars in
            clua_load_text(thread, chars.baseAddress, chars.count, "@" + chunkName)
        }
        if status == LUA_OK {
            clua_getref(thread, sandboxReference)
            lua_setupvalue(thread, -2, 1) // _ENV: the sandbox, not the real globals
        }
        return status
    }

    private func loadFunction(_ buffer: UnsafeBufferPointer<UInt8>, chunkName: String) throws -> LuaRef {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        context.pointee.memory_refused = 0
        let status = loadChunk(L, buffer, chunkName: chunkName)
        guard status == LUA_OK else {
            let message = string(at: -1) ?? "cannot load \(chunkName)"
            let kind: LuaError.Kind = status == LUA_ERRMEM ? .memory : .syntax
            var error = LuaError(kind: kind, luaMessage: message, traceback: nil)
            if error.file == nil { error.file = chunkName }
            restoreFullChunkName(&error)
            throw error
        }
        return makeRef(at: -1)
    }

    // MARK: Calling

    /// Calls a Lua function (or a value with `__call`) in protected mode with a
    /// traceback handler, under this state's memory cap and instruction budget. Inside
    /// `withBudget` the call shares that budget (and fails at once if it is spent).
    @discardableResult
    public func call(_ function: LuaValue, _ arguments: [LuaValue] = [], budget: Int?? = .none) throws -> [LuaValue] {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_checkstack(L, Int32(clamping: arguments.count) + 4) != 0, arguments.count < 1 << 20 else {
            throw LuaError(kind: .memory, message: "too many arguments (\(arguments.count))")
        }
        push(function)
        for argument in arguments { push(argument) }
        try protectedCall(arguments: Int32(arguments.count), budget: budget ?? limits.instructionBudget)
        let count = lua_gettop(L) - top
        var results: [LuaValue] = []
        results.reserveCapacity(Int(count))
        for i in 0..<count { results.append(value(at: top + 1 + i)) }
        return results
    }

    /// Runs `lua_pcall` on the function and arguments on top of the stack, leaving the
    /// results there, or throws with the stack back at the function's slot.
    func protectedCall(arguments: Int32, results: Int32 = LUA_MULTRET, budget: Int?) throws {
        let base = lua_gettop(L) - arguments - 1
        let nested = context.pointee.budget_armed != 0
        if nested {
            // One input, one budget: a spent budget is not renewed by calling again.
            if clua_budget_spent(context) != 0 {
                lua_settop(L, base)
                throw spentBudgetError()
            }
            context.pointee.memory_refused = 0
            context.pointee.stack_refused = 0
        } else {
            beginCall(arming: budget)
        }
        let status = clua_pcall(L, arguments, results)
        let overran = context.pointee.budget_tripped != 0 || context.pointee.interrupted != 0
        if status == LUA_OK && !overran {
            if !nested, budget != nil { clua_disarm_budget(L) }
            return
        }
        // A budget that tripped inside a coroutine or pcall whose error the script caught
        // still fails the call: the host asked for a bounded call and did not get one.
        let error = status == LUA_OK ? spentBudgetError() : errorFromTop(status: status)
        if !nested, budget != nil { clua_disarm_budget(L) }
        lua_settop(L, base)
        throw error
    }

    /// Clears what the last call left in the context; arms a budget if one is given.
    private func beginCall(arming budget: Int?) {
        context.pointee.memory_refused = 0
        context.pointee.stack_refused = 0
        // No input is in progress: what the last one tripped or was stopped by is over.
        context.pointee.budget_tripped = 0
        context.pointee.interrupted = 0
        guard let budget else { return }
        clua_arm_budget(L, Int64(clamping: budget), 1)
    }

    /// Runs `body` - all the calls into Lua one input causes: its hooks, the timers it
    /// fires, the turns it passes, the rendering it asks for - under one instruction
    /// budget (`budget`, by default the limits'). Once spent, the budget stays spent:
    /// every later call in `body` fails at once, and a `body` that swallowed the error
    /// still throws it at the end. Nested inside another `withBudget`, it shares that one.
    public func withBudget<T>(_ budget: Int?? = .none, _ body: () throws -> T) throws -> T {
        guard context.pointee.budget_armed == 0, let limit = budget ?? limits.instructionBudget else { return try body() }
        beginCall(arming: max(limit, 1))
        defer { clua_disarm_budget(L) }
        let result = try body()
        if context.pointee.budget_tripped != 0 || context.pointee.interrupted != 0 { throw spentBudgetError() }
        return result
    }

    /// Runs host work (a rollback) with the current budget set aside: it neither counts
    /// nor can trip, and the budget is as it was afterwards.
    public func withoutBudget<T>(_ body: () throws -> T) rethrows -> T {
        let saved = clua_suspend_budget(L)
        defer { clua_resume_budget(L, saved) }
        return try body()
    }

    /// Charges host work done for the current input (a timer fired, a turn passed, a
    /// table rendered) to its budget, in instruction-equivalents; throws once it is spent.
    public func charge(_ units: Int) throws {
        if clua_charge(L, Int64(clamping: units)) != 0 { throw spentBudgetError() }
    }

    /// Whether the current input's budget is spent (or Ctrl-C asked to stop).
    public var budgetSpent: Bool { clua_budget_spent(context) != 0 }

    /// Requests that the running script stop at its next instruction; safe to call
    /// from a signal handler. Works while an instruction budget is armed.
    public var interruptHandle: LuaInterruptHandle { LuaInterruptHandle(context: context) }

    /// `snapshot(root [, earlier...])`, which copies every table reachable from `root`
    /// (through keys, values and metatables) and returns the copies (an `earlier`
    /// snapshot's copy of a table that still holds the same is shared, not made again:
    /// copies are only ever read) and their counts, `restore(copies...)`, which puts
    /// each table back as it was, in place (rewriting only those that differ from their
    /// copy; true when none did), and `unchanged(copies...)`, which says whether
    /// every copied table still is as it was (reading only). All use raw access only.
    public func snapshotFunctions() -> (snapshot: LuaValue, restore: LuaValue, unchanged: LuaValue) {
        clua_push_snapshot_functions(L)
        defer { clua_pop(L, 3) }
        return (value(at: -3), value(at: -2), value(at: -1))
    }

    /// The file and line where a Lua function was defined (nil for C functions).
    public func definition(of function: LuaRef) -> (file: String, line: Int)? {
        clua_getref(L, function.reference)
        guard lua_type(L, -1) == LUA_TFUNCTION else { clua_pop(L, 1); return nil }
        var ar = lua_Debug()
        // ">S" pops the function.
        guard lua_getinfo(L, ">S", &ar) != 0, ar.linedefined > 0, let source = ar.source, source.pointee == 64 /* @ */ else {
            return nil
        }
        return (fullChunkName(String(cString: source + 1)), Int(ar.linedefined))
    }

    /// Lua's own `next`, in hash order, for the host's Lua code that copies tables whole
    /// (where the order cannot show): a fraction of the sandbox's ordered `next`'s cost.
    public var rawNext: LuaValue {
        clua_getref(L, rawNextReference)
        defer { clua_pop(L, 1) }
        return value(at: -1)
    }

    // MARK: Memory

    /// Bytes the state currently holds.
    /// The creation serial the next table, function or coroutine gets: scripts see it as
    /// the object's identity (`tostring`) and `pairs` orders object keys by it. A game
    /// saves and restores it with its state, and host work that looks without changing
    /// anything (rendering, a status line) puts it back, so the same inputs give the same
    /// identities whatever else was asked in between.
    public var creationSerial: UInt64 {
        get { context.pointee.next_serial }
        set { context.pointee.next_serial = newValue }
    }

    public var memoryUsed: Int { context.pointee.memory_used }
    /// The most bytes the state has held at once.
    public var memoryPeak: Int { context.pointee.memory_peak }

    /// Runs a full garbage collection.
    public func collectGarbage() { clua_collect(L) }
}

/// Asks a running script to stop (Ctrl-C). Copyable into a signal handler's reach.
public struct LuaInterruptHandle: @unchecked Sendable {
    let context: UnsafeMutablePointer<clua_context>
    public func request() { context.pointee.interrupt_requested = 1 }
    /// Withdraws a request no script was running to see.
    public func clear() { context.pointee.interrupt_requested = 0 }
}

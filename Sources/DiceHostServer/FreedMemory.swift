import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Gives memory that rooms freed back to the system. glibc's malloc keeps what a thread
/// freed in that thread's arena for reuse, and returns only the top of a heap by itself:
/// memory freed by games that went idle, by finished handshakes and by message buffers
/// stays in the server's RSS however little is live (an idle room's memory).
/// `malloc_trim` releases the free pages inside every arena too. It walks each arena
/// under its lock, so it runs only from the lobby's sweep, twice a minute, not per room.
enum FreedMemory {
    #if canImport(Glibc)
    /// Looked up at run time: `malloc.h`, which declares it, is not part of Swift's Glibc
    /// module. Nil where the C library has none (musl).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
    #endif

    static func giveBack() {
        #if canImport(Glibc)
        _ = mallocTrim?(0)
        #endif
    }

    #if canImport(Glibc)
    /// `mallopt`, looked up as `malloc_trim` is. Nil where the C library has none.
    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()
    /// glibc's `M_ARENA_MAX` (malloc.h).
    private static let arenaMaxOption: Int32 = -8
    #endif

    /// Caps glibc's malloc arenas at two a core (its default is eight a core). A served
    /// room's memory is made and freed on whichever thread runs it (room threads, NIO's
    /// event loops, Swift's pool): with an arena for nearly every thread, a room's blocks
    /// end up spread over many arenas, and the holes its garbage and messages leave in each
    /// stay resident (an idle room's memory). At most a core's worth of threads
    /// run at once, so two arenas a core still leave one to each running thread mostly.
    /// Called when `serve` starts, before its thread pools make their arenas. Returns the
    /// cap set, nil where the C library has no such setting (then nothing changed).
    @discardableResult
    static func limitArenas(cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int? {
        #if canImport(Glibc)
        let arenas = Int32(clamping: 2 * max(1, cores))
        guard let mallopt, mallopt(arenaMaxOption, arenas) == 1 else { return nil }
        return Int(arenas)
        #else
        return nil
        #endif
    }
}

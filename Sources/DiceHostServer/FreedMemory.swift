#if canImport(Glibc)
import Glibc
#endif

/// Gives memory that rooms freed back to the system. glibc's malloc keeps what a thread
/// freed in that thread's arena for reuse, and returns only the top of a heap by itself:
/// memory freed by games that went idle, by finished handshakes and by message buffers
/// stays in the server's RSS however little is live (issue 32: an idle room's memory).
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
}

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

extension Platform {
    /// Tunes glibc's allocator for a process that works a batch at a time: `arenas` heap
    /// arenas (one by default: each request's thread would otherwise keep the garbage of its
    /// batch in an arena of its own; a command that keeps two threads allocating at once, like
    /// an import parsing one batch while writing the last, wants one per thread, else they
    /// queue on its lock), and large blocks mapped on their own, so a freed segment goes back
    /// to the system instead of fragmenting the heap (docs/PERFORMANCE.md). A no-op elsewhere.
    package static func tuneAllocatorForBatchWork(arenas: Int32 = 1) {
        #if canImport(Glibc)
            // Looked up at run time: Glibc's module map leaves out malloc.h.
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            typealias Option = @convention(c) (Int32, Int32) -> Int32
            let mallopt = unsafeBitCast(symbol, to: Option.self)
            let arenaMax: Int32 = -8
            let mmapThreshold: Int32 = -3
            let trimThreshold: Int32 = -1
            _ = mallopt(arenaMax, arenas)
            _ = mallopt(mmapThreshold, 256 << 10)
            _ = mallopt(trimThreshold, 1 << 20)
        #endif
    }
}

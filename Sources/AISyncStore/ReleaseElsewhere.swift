import Dispatch

/// Frees `value` on a background thread. Freeing a window of parsed versions is a large
/// part of the thread that applies the journal, the one an index rebuild waits for; the
/// parsing threads have time to spare. Not for a pull: it trims the heap after each batch,
/// and frees still queued then raise its peak (docs/PERFORMANCE.md).
func releaseElsewhere(_ value: some Sendable) {
    DispatchQueue.global(qos: .utility).async { withExtendedLifetime(value) {} }
}

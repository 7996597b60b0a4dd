import Dispatch

/// Frees `value` on a background thread. Freeing a window of parsed versions or the states
/// decoded from it took a sixth of the thread that applies the journal, the one an index
/// rebuild or a pull waits for; the parsing threads have time to spare.
func releaseElsewhere(_ value: some Sendable) {
    DispatchQueue.global(qos: .utility).async { withExtendedLifetime(value) {} }
}

import Synchronization

/// The WebDAV collections an ``HTTPRemote`` has seen exist (made, or written into), so a
/// later upload to the same folder does not check it again.
///
/// A reference shared by every copy of the remote value, behind a `Mutex` so concurrent
/// pushes can use it. It is only a hint: a collection deleted on the server since is found
/// by the PUT's 409, forgotten, and made again.
final class KnownCollections: Sendable {
    private let known = Mutex<Set<String>>([])

    /// Whether `path` (no trailing slash) is known to exist.
    func contains(_ path: String) -> Bool { known.withLock { $0.contains(path) } }

    /// Remembers that `path` exists (the root, "", is never recorded: it is not ours to make).
    func insert(_ path: String) {
        guard !path.isEmpty else { return }
        _ = known.withLock { $0.insert(path) }
    }

    /// Forgets `path` after the server said it is missing.
    func forget(_ path: String) { _ = known.withLock { $0.remove(path) } }
}

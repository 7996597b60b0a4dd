import AISyncCore
import AISyncFiles

/// Live updates for an app: which records changed, as they change in this process.
///
/// Every write of this `Store` value (edits, creates, pulled versions) is announced once it
/// is saved. Writes by another process (the CLI beside an app) are seen by the next read,
/// not announced.
public struct StoreChange: Hashable, Sendable {
    /// The records that have new versions.
    public var records: Set<RecordID>
}

extension Store {
    /// A stream of changes; it ends when the caller stops iterating.
    ///
    /// ```swift
    /// for await change in store.changes() { reload(change.records) }
    /// ```
    public func changes() -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream<StoreChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = nextObserverID
        nextObserverID += 1
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    private func removeObserver(_ id: Int) { observers[id] = nil }

    /// Tells every observer which records just changed.
    func announce(_ records: Set<RecordID>) {
        guard !records.isEmpty, !observers.isEmpty else { return }
        let change = StoreChange(records: records)
        for continuation in observers.values { continuation.yield(change) }
    }
}

extension Store {
    /// The journal's size in bytes, from the file system (no lock, no read): it grows with
    /// every version journaled, by this process or another. 0 when there is none.
    public nonisolated func journalFileSize() -> Int64 {
        Platform.stat("\(root)/journal.jsonl")?.size ?? 0
    }
}

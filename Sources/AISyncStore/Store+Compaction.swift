import AISyncCore
import AISyncFiles

/// What a snapshot holds (docs/DESIGN.md §5.7): for each record, only the versions its state
/// still names (``RecordState/essentialVersionIDs``), read a few records at a time so a store
/// of any size is written out in bounded memory.
extension Store {
    /// Every record id, sorted: the order a snapshot is written in.
    package func allRecordIDs() throws(AISyncError) -> [RecordID] {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [RecordID] in
            try snapshot.ids(where: { _ in true })
        }
    }

    /// The essential versions of `records`, each with its journal line, in journal order per
    /// record; and how many versions those records have in all (for the report).
    package func essentialLines(of records: [RecordID]) throws(AISyncError) -> (
        lines: [(version: Version, raw: [UInt8])], total: Int
    ) {
        try locked(write: false) {
            (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> ([(version: Version, raw: [UInt8])], Int) in
            var result: [(version: Version, raw: [UInt8])] = []
            var total = 0
            for id in records {
                guard let state = try snapshot.state(id, reader: reader), let refs = try snapshot.lineRefs(id) else {
                    continue
                }
                let keep = state.essentialVersionIDs
                let lines = try journal.lines(at: refs)
                total += lines.count
                for line in lines where keep.contains(line.version.id) {
                    result.append((line.version, Array(line.raw)))
                }
            }
            snapshot.dropDecodedStates()
            return (result, total)
        }
    }
}

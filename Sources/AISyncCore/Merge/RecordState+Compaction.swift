/// Which versions a compacted history must keep (docs/DESIGN.md §5.7).
///
/// A version that no register, element or remove of the state still names was superseded in
/// everything it wrote: each of its `set`s is dominated by a later one, each add or edit by a
/// later edit or a remove that had seen it, each remove by a later remove. Folding only the
/// versions the state names gives the same state (the maxima of a set that holds every
/// maximum are the same maxima), and merging a dropped version again later changes nothing
/// visible: whatever dominated it is still there, directly or through a version that
/// dominates it in turn. The record's clock survives too: every version writes `deleted`, so
/// the maximal versions are all kept, and their clocks join to the same clock.
/// `MergePropertyTests` checks all of it on random histories.
extension RecordState {
    /// The ids of the versions that write something still part of this state.
    public var essentialVersionIDs: Set<SHA256Digest> {
        var ids = Set<SHA256Digest>()
        for entries in registers.values {
            for entry in entries { ids.insert(entry.stamp.version) }
        }
        for element in elements.values {
            for entry in element.entries { ids.insert(entry.stamp.version) }
            for remove in element.removes { ids.insert(remove.version) }
        }
        return ids
    }
}

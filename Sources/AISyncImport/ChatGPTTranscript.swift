import AISyncCore

/// The main transcript of a ChatGPT conversation tree: the path from `current_node` up
/// through `parent` links, oldest first. Broken trees are survived: a missing parent ends
/// the path, a cycle is cut where it closes, a `current_node` that is missing or unknown
/// falls back to the newest leaf.
struct ChatGPTTranscript {
    /// Node ids on the main path, root first.
    var path: [String]
    /// True when the walk met a missing parent, a cycle or a `current_node` not in the mapping.
    var broken: Bool
    /// True when there was no `current_node`, so the newest leaf was taken.
    var guessed: Bool

    init(mapping: JSONTape.Lookup, currentNode: String?) {
        var broken = false
        var start = currentNode.flatMap { mapping[$0] != nil ? $0 : nil }
        guessed = start == nil && !mapping.isEmpty
        if start == nil {
            broken = currentNode != nil
            start = Self.newestLeaf(mapping)
        }
        var path: [String] = []
        var visited: Set<String> = []
        var cursor = start
        while let id = cursor {
            guard visited.insert(id).inserted else {
                broken = true
                break
            }
            guard let node = mapping[id] else {
                broken = true
                break
            }
            path.append(id)
            cursor = node["parent"]?.stringValue
        }
        self.path = path.reversed()
        self.broken = broken
    }

    /// The leaf (no children in the mapping) whose message is newest; ties go to the
    /// greatest id, so the choice is the same on every run.
    static func newestLeaf(_ mapping: JSONTape.Lookup) -> String? {
        var best: (time: Double, id: String)?
        for (id, node) in mapping.members {
            let children = node["children"]?.elements?.compactMap(\.stringValue) ?? []
            guard !children.contains(where: { mapping[$0] != nil }) else { continue }
            let time = node["message"]?["create_time"]?.numberValue ?? -1
            if let current = best, time < current.time || (time == current.time && !JSONObject.precedes(current.id, id))
            {
                continue
            }
            best = (time, id)
        }
        return best?.id
    }
}

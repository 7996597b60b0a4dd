import AISyncCore
import AISyncRemote
import AISyncStore

/// The decisions of a pull, as pure functions of what was read (docs/DESIGN.md §5.10): which heads moved,
/// which segments to fetch, which pictures to get, and the checkpoint afterwards.
/// `SyncEngine+Pull` carries them out.
enum PullPlanner {
    /// ETags compared weakly: Apache turns `W/"x"` into `"x"` a second after a write.
    static func sameETag(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return false }
        func opaque(_ e: String) -> Substring { e.hasPrefix("W/") ? e.dropFirst(2) : Substring(e) }
        return opaque(a) == opaque(b)
    }

    /// Heads that moved, from a listing of `heads/`.
    struct HeadChanges: Equatable, Sendable {
        /// Other devices' heads to read, with their listed ETags.
        var toRead: [Change]
        /// Our own head's listed ETag when it is not the one we wrote ("" when the listing
        /// gave none): a store restored from a backup. Nil when our head is as we left it.
        var own: String?
    }

    /// One head to read.
    struct Change: Equatable, Sendable {
        var device: DeviceID
        var etag: String?
    }

    /// From a listing (WebDAV, folder): heads whose ETag changed since the last pull; names
    /// that are not `<device id>.json` are ignored (a hostile or untidy server).
    static func changedHeads(listing: [RemoteEntry], device: DeviceID, checkpoint: SyncCheckpoint) -> HeadChanges {
        var changes = HeadChanges(toRead: [], own: nil)
        for entry in listing {
            guard entry.name.hasSuffix(".json"), let other = DeviceID(String(entry.name.dropLast(5))) else { continue }
            if other == device {
                if !sameETag(entry.etag, checkpoint.headETag) { changes.own = entry.etag ?? "" }
                continue
            }
            if sameETag(entry.etag, checkpoint.pulled[other]?.etag) { continue }
            changes.toRead.append(Change(device: other, etag: entry.etag))
        }
        return changes
    }

    /// The ETag to remember for a head just read, so the next listing skips it while it shows
    /// the same one: the read's own, else the one listed. None when the server answered moments
    /// after the head changed (`RemoteFile.etagSettled`): where ETags hold whole seconds
    /// (WsgiDAV), a same-size rewrite in that second keeps the ETag, and a pull that trusted it
    /// would never see that push. The next pull reads the head again and judges by its number.
    static func rememberedETag(_ read: RemoteFile, listed: String?) -> String? {
        read.etagSettled ? read.etag ?? listed : nil
    }

    /// On a remote that cannot list (plain HTTP), every head named by the device index or by
    /// another head is read; one is kept when its number moved (nginx's ETag is seconds and
    /// size, so two pushes in one second can share it — numbers, not ETags, decide).
    static func headMoved(_ head: DeviceHead, checkpoint: SyncCheckpoint) -> Bool {
        head.seq > checkpoint.pulled[head.device]?.seq ?? 0
    }

    /// Our own head read on a remote that cannot list: moved past what we pushed (or we never
    /// pushed) means a restore; the pull takes our segments back.
    static func ownHeadMoved(_ head: DeviceHead, checkpoint: SyncCheckpoint) -> Bool {
        checkpoint.headETag == nil || head.seq > checkpoint.pushedSeq
    }

    /// On an encrypted remote a head is authentic, but the server may serve an old one (a
    /// replay, to hide newer versions): a head behind what this store already read from that
    /// device is refused. (On a plain remote the server could forge anything anyway; there an
    /// old head is merely not followed.)
    static func checkNotReplayed(_ head: DeviceHead, knownSeq: Int64, shown: String) throws(AISyncError) {
        guard head.seq < knownSeq else { return }
        throw AISyncError(
            .replayed,
            "\(shown)/heads/\(head.device.rawValue).json is an old copy (segment \(head.seq), but \(knownSeq) was seen before): the server replayed it",
            hint: "Nothing was applied; check the server (a restored backup?) and let that device push again")
    }

    /// The segments to fetch from one device: a range, never a list, since a head's `seq` is
    /// the remote's word (a hostile head claiming 10^15 segments must cost nothing until the
    /// first missing segment is found).
    struct Fetch: Equatable, Sendable {
        var device: DeviceID
        var seqs: ClosedRange<Int64>
        var remoteID: String
        /// The device's name, for progress.
        var name: String
    }

    /// The segments past what we pulled from each other device's head, in order.
    static func fetches(heads: [DeviceHead], device: DeviceID, checkpoint: SyncCheckpoint) -> [Fetch] {
        heads.filter { $0.device != device }.compactMap { head -> Fetch? in
            let from = (checkpoint.pulled[head.device]?.seq ?? 0) + 1
            guard head.seq >= from else { return nil }
            return Fetch(device: head.device, seqs: from...head.seq, remoteID: head.remoteID, name: head.name)
        }
    }

    /// The highest counter of each device's own versions among those read: push never sends
    /// those back (`PushPlanner.outgoing`).
    static func counters(_ fetched: [(device: DeviceID, versions: [Version])]) -> [DeviceID: Int64] {
        var result: [DeviceID: Int64] = [:]
        for (device, versions) in fetched {
            let highest = counter(of: device, in: versions)
            if highest > 0 { result[device] = max(result[device] ?? 0, highest) }
        }
        return result
    }

    /// The highest counter of `device`'s own versions among `versions` (0 when none).
    static func counter(of device: DeviceID, in versions: some Sequence<Version>) -> Int64 {
        var highest: Int64 = 0
        for v in versions where v.device == device { highest = max(highest, v.clock[device]) }
        return highest
    }

    /// The pictures a pull fetches: those the incoming versions show, then live images whose
    /// bytes earlier pulls could not get; each once, only those the store lacks.
    static func wantedImages(
        incoming: [(SHA256Digest, ImageBody)], live: [ImageBody],
        have: Set<SHA256Digest>
    ) -> [(SHA256Digest, ImageBody)] {
        var seen = have
        var wanted: [(SHA256Digest, ImageBody)] = []
        for (digest, image) in incoming where seen.insert(digest).inserted { wanted.append((digest, image)) }
        for image in live where seen.insert(image.sha256).inserted { wanted.append((image.sha256, image)) }
        return wanted
    }

    /// The checkpoint after merging: each head's number, ETag and counter, never going back
    /// (a stale listing must not make us pull again); the journal offset moves only when the
    /// store held nothing unpushed before the merge (`wasAtEnd`).
    static func checkpoint(
        after checkpoint: SyncCheckpoint, heads: [(head: DeviceHead, etag: String?)], device: DeviceID,
        counters: [DeviceID: Int64], merged: (wasAtEnd: Bool, end: Int64)
    ) -> SyncCheckpoint {
        var next = checkpoint
        if merged.wasAtEnd { next.pushedOffset = merged.end }
        for (head, etag) in heads where head.device != device {
            let known = checkpoint.pulled[head.device]
            next.pulled[head.device] = SyncCheckpoint.Pulled(
                seq: max(head.seq, known?.seq ?? 0), etag: etag,
                counter: max(counters[head.device] ?? 0, known?.counter ?? 0))
        }
        return next
    }

    /// Segment bytes merged at a time by a pull: big enough that the fsync of each journal
    /// append is amortized, small enough that memory stays a few times this whatever the
    /// remote holds.
    static let batchBytes = 4 << 20

    /// The checkpoint after merging one batch of a device's segments, through `seq`: its
    /// ETag only once its last segment is in (until then a listing still shows it moved),
    /// numbers never going back; the journal offset as in ``checkpoint(after:heads:device:counters:merged:)``.
    static func advance(
        _ checkpoint: SyncCheckpoint, device: DeviceID, through seq: Int64, etag: String?, counter: Int64,
        merged: (wasAtEnd: Bool, end: Int64)
    ) -> SyncCheckpoint {
        var next = checkpoint
        if merged.wasAtEnd { next.pushedOffset = merged.end }
        let known = checkpoint.pulled[device]
        next.pulled[device] = SyncCheckpoint.Pulled(
            seq: max(seq, known?.seq ?? 0), etag: etag ?? known?.etag,
            counter: max(counter, known?.counter ?? 0))
        return next
    }

    /// What to do with `aisync.json`.
    enum ManifestAction: Equatable, Sendable {
        /// Use it as it is.
        case use(RemoteManifest)
        /// Raise an aisync 1 remote to the current format (the first push of records v2).
        case raise(RemoteManifest)
        /// Its id is not the one we synced with: reset, unless our own head still belongs to
        /// the old id (two first pushes racing on a server that ignores If-None-Match).
        case checkReset(RemoteManifest)
        /// None there: create one (a push) …
        case create
        /// … or say this is not an aisync remote (a pull).
        case missing
    }

    static func manifestAction(found: RemoteManifest?, knownID: String?, create: Bool) -> ManifestAction {
        guard let found else { return create ? .create : .missing }
        if let knownID, knownID != found.remoteID { return .checkReset(found) }
        return create && found.format < RemoteManifest.currentFormat ? .raise(found) : .use(found)
    }
}

/// The decision behind restore-from-backup (see `SyncEngine+Restore`).
enum RestorePlanner {
    /// Versions this device journaled since its checkpoint that are not among its own
    /// segments on the remote. None: the store is a restore (its journal is a prefix of the
    /// remote's history) and takes the segments back. Some: a copy that diverged.
    static func diverged(journaled: [Version], onRemote: Set<SHA256Digest>, device: DeviceID) -> [SHA256Digest] {
        journaled.filter { $0.device == device && !onRemote.contains($0.id) }.map(\.id)
    }

    /// The checkpoint after taking back our own segments up to `head`.
    static func adopted(_ checkpoint: SyncCheckpoint, head: DeviceHead, etag: String?, end: Int64) -> SyncCheckpoint {
        var next = checkpoint
        next.pushedSeq = head.seq
        next.pushedOffset = end
        next.headETag = etag ?? ""
        next.remoteID = checkpoint.remoteID ?? head.remoteID
        return next
    }
}

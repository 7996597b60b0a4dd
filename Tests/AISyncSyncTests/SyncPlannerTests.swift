import AISyncTestSupport
import Testing

@testable import AISyncCore
@testable import AISyncImgur
@testable import AISyncRemote
@testable import AISyncStore
@testable import AISyncSync

// Table tests of the sync planners: every decision a push or pull makes — crash windows,
// coarse ETags, racing first pushes, lost answers, relayed versions, restored and copied
// stores — as pure functions, in milliseconds. The real-server suites check that each server
// behaves as these tables assume.

private let me = DeviceID(String(repeating: "a", count: 32))!
private let peer = DeviceID(String(repeating: "b", count: 32))!
private let third = DeviceID(String(repeating: "c", count: 32))!

private func checkpoint(
    pushedSeq: Int64 = 0, pushedOffset: Int64 = 0, headETag: String? = nil, pendingSeq: Int64? = nil,
    pendingOffset: Int64? = nil, registered: Bool = false, remoteID: String? = "r1",
    pulled: [DeviceID: SyncCheckpoint.Pulled] = [:]
) -> SyncCheckpoint {
    var c = SyncCheckpoint(remote: "origin")
    c.pushedSeq = pushedSeq
    c.pushedOffset = pushedOffset
    c.headETag = headETag
    c.pendingSeq = pendingSeq
    c.pendingOffset = pendingOffset
    c.registered = registered
    c.remoteID = remoteID
    c.pulled = pulled
    return c
}

private func version(_ device: DeviceID, _ counter: Int64, record: String = "chat-1") -> Version {
    Version(
        record: RecordID(record)!, kind: .chat, clock: VectorClock([device: counter]),
        time: HybridLogicalTime(wall: counter),
        device: device, ops: [.set(field: "title", value: .inline(.string("t\(counter)")))])
}

private func head(_ device: DeviceID, seq: Int64, updated: Int64 = 1_000, devices: [DeviceID] = []) -> DeviceHead {
    DeviceHead(
        device: device, name: "n", seq: seq, updated: Timestamp(milliseconds: updated), remoteID: "r1", devices: devices
    )
}

private func digest(_ n: UInt8) -> SHA256Digest { SHA256.hash([n]) }

private func image(_ n: UInt8, imgur servedSame: Bool? = nil) -> ImageBody {
    var body = ImageBody(
        title: "p\(n)", sha256: digest(n), size: 10, mediaType: "image/png",
        created: Timestamp(milliseconds: 0), updated: Timestamp(milliseconds: 0))
    if let servedSame {
        body.imgur = ImageBody.ImgurLocation(
            id: "i\(n)", link: "https://i.imgur.com/i\(n).png",
            servedSHA256: servedSame ? digest(n) : digest(n + 100))
    }
    return body
}

@Suite("Sync planner: push")
struct PushPlannerTests {
    struct OwnHeadCase: Sendable, CustomTestStringConvertible {
        var name: String
        var observed: PushPlanner.ObservedHead?
        var checkpoint: SyncCheckpoint
        var expected: PushPlanner.OwnHead
        var testDescription: String { name }
    }

    static let ownHeadCases: [OwnHeadCase] = [
        .init(name: "first push: no head", observed: nil, checkpoint: checkpoint(), expected: .absent),
        .init(
            name: "no head although we pushed (remote emptied)", observed: nil,
            checkpoint: checkpoint(pushedSeq: 3, headETag: "e"), expected: .absent),
        .init(
            name: "our head, unchanged", observed: .init(seq: 3, etag: "e"),
            checkpoint: checkpoint(pushedSeq: 3, headETag: "e"), expected: .current(etag: "e")),
        .init(
            name: "our head, ETag changed by the server (Apache W/ → strong)", observed: .init(seq: 3, etag: "\"x\""),
            checkpoint: checkpoint(pushedSeq: 3, headETag: "W/\"x\""), expected: .current(etag: "\"x\"")),
        .init(
            name: "server gives no ETag: keep ours", observed: .init(seq: 3, etag: nil),
            checkpoint: checkpoint(pushedSeq: 3, headETag: "e"), expected: .current(etag: "e")),
        .init(
            name: "head behind the checkpoint (stale read)", observed: .init(seq: 2, etag: "e"),
            checkpoint: checkpoint(pushedSeq: 3, headETag: "e"), expected: .current(etag: "e")),
        .init(
            name: "head ahead: restored from a backup or a copy", observed: .init(seq: 5, etag: "f"),
            checkpoint: checkpoint(pushedSeq: 3, headETag: "e"), expected: .ahead(seq: 5)),
        .init(
            name: "head but no checkpoint: a reinstall", observed: .init(seq: 1, etag: "f"), checkpoint: checkpoint(),
            expected: .ahead(seq: 1)),
        .init(
            name: "head but checkpoint lost its ETag", observed: .init(seq: 3, etag: "f"),
            checkpoint: checkpoint(pushedSeq: 3), expected: .ahead(seq: 3)),
        .init(
            name: "empty-ETag checkpoint (server without ETags), same seq", observed: .init(seq: 4, etag: nil),
            checkpoint: checkpoint(pushedSeq: 4, headETag: ""), expected: .current(etag: "")),
    ]

    @Test("own head", arguments: ownHeadCases)
    func ownHead(_ c: OwnHeadCase) {
        #expect(PushPlanner.ownHead(c.observed, checkpoint: c.checkpoint) == c.expected)
    }

    struct SettleCase: Sendable, CustomTestStringConvertible {
        var name: String
        var before: SyncCheckpoint
        var observed: PushPlanner.ObservedHead?
        var pushedSeq: Int64, pushedOffset: Int64, headETag: String?
        var testDescription: String { name }
    }

    static let settleCases: [SettleCase] = [
        .init(
            name: "crash after the head landed",
            before: checkpoint(pushedSeq: 2, pushedOffset: 100, headETag: "e", pendingSeq: 3, pendingOffset: 250),
            observed: .init(seq: 3, etag: "f"), pushedSeq: 3, pushedOffset: 250, headETag: "f"),
        .init(
            name: "crash before the head write",
            before: checkpoint(pushedSeq: 2, pushedOffset: 100, headETag: "e", pendingSeq: 3, pendingOffset: 250),
            observed: .init(seq: 2, etag: "e"), pushedSeq: 2, pushedOffset: 100, headETag: "e"),
        .init(
            name: "crash on a first push before the head", before: checkpoint(pendingSeq: 1, pendingOffset: 80),
            observed: nil, pushedSeq: 0, pushedOffset: 0, headETag: nil),
        .init(
            name: "crash on a first push after the head", before: checkpoint(pendingSeq: 1, pendingOffset: 80),
            observed: .init(seq: 1, etag: "g"), pushedSeq: 1, pushedOffset: 80, headETag: "g"),
        .init(
            name: "head landed, server gives no ETag",
            before: checkpoint(pushedSeq: 1, pushedOffset: 10, headETag: "e", pendingSeq: 2, pendingOffset: 20),
            observed: .init(seq: 2, etag: nil), pushedSeq: 2, pushedOffset: 20, headETag: ""),
        .init(
            name: "another copy moved the head further",
            before: checkpoint(pushedSeq: 1, pushedOffset: 10, headETag: "e", pendingSeq: 2, pendingOffset: 20),
            observed: .init(seq: 7, etag: "z"), pushedSeq: 1, pushedOffset: 10, headETag: "e"),
        .init(
            name: "pending without offset (damaged): nothing adopted",
            before: checkpoint(pushedSeq: 1, pushedOffset: 10, headETag: "e", pendingSeq: 2),
            observed: .init(seq: 2, etag: "f"), pushedSeq: 1, pushedOffset: 10, headETag: "e"),
    ]

    @Test("settling an interrupted push", arguments: settleCases)
    func settle(_ c: SettleCase) {
        let after = PushPlanner.settle(c.before, observed: c.observed)
        #expect(after.pushedSeq == c.pushedSeq)
        #expect(after.pushedOffset == c.pushedOffset)
        #expect(after.headETag == c.headETag)
        #expect(after.pendingSeq == nil && after.pendingOffset == nil)
    }

    struct OutgoingCase: Sendable, CustomTestStringConvertible {
        var name: String
        var versions: [Version]
        var pulled: [DeviceID: SyncCheckpoint.Pulled]
        var expected: [Int]
        var testDescription: String { name }
    }

    static let outgoingCases: [OutgoingCase] = [
        .init(name: "only our own", versions: [version(me, 1), version(me, 2)], pulled: [:], expected: [0, 1]),
        .init(
            name: "pulled from here: never sent back", versions: [version(peer, 1), version(me, 1), version(peer, 2)],
            pulled: [peer: .init(seq: 1, etag: "e", counter: 2)], expected: [1]),
        .init(name: "relayed from another remote: sent", versions: [version(third, 4)], pulled: [:], expected: [0]),
        .init(
            name: "partly pulled: newer ones relayed",
            versions: [version(peer, 1), version(peer, 2), version(peer, 3)],
            pulled: [peer: .init(seq: 1, etag: nil, counter: 2)], expected: [2]),
        .init(
            name: "checkpoint without counters (aisync 1): everything goes", versions: [version(peer, 1)],
            pulled: [peer: .init(seq: 1, etag: nil, counter: 0)], expected: [0]),
        .init(name: "nothing journaled", versions: [], pulled: [:], expected: []),
        .init(
            name: "mixed devices and counters",
            versions: [version(peer, 5), version(third, 1), version(me, 9), version(third, 2)],
            pulled: [peer: .init(seq: 2, etag: nil, counter: 5), third: .init(seq: 1, etag: nil, counter: 1)],
            expected: [2, 3]),
    ]

    @Test("what a push sends", arguments: outgoingCases)
    func outgoing(_ c: OutgoingCase) {
        #expect(PushPlanner.outgoing(c.versions, device: me, checkpoint: checkpoint(pulled: c.pulled)) == c.expected)
    }

    struct StartCase: Sendable, CustomTestStringConvertible {
        var name: String
        var outgoing: Int, journaled: Int
        var checkpoint: SyncCheckpoint
        var expected: PushPlanner.Start
        var testDescription: String { name }
    }

    static let startCases: [StartCase] = [
        .init(
            name: "nothing new, registered: no request", outgoing: 0, journaled: 0,
            checkpoint: checkpoint(headETag: "e", registered: true), expected: .nothingToSend(advanceTo: nil)),
        .init(
            name: "only pulled versions: move past them", outgoing: 0, journaled: 3,
            checkpoint: checkpoint(headETag: "e", registered: true), expected: .nothingToSend(advanceTo: 500)),
        .init(
            name: "new versions", outgoing: 2, journaled: 2, checkpoint: checkpoint(headETag: "e", registered: true),
            expected: .send),
        .init(
            name: "never pushed: create the head even when empty", outgoing: 0, journaled: 0, checkpoint: checkpoint(),
            expected: .send),
        .init(
            name: "not registered yet (crash before register)", outgoing: 0, journaled: 0,
            checkpoint: checkpoint(headETag: "e"), expected: .send),
    ]

    @Test("whether a push has work", arguments: startCases)
    func start(_ c: StartCase) {
        #expect(
            PushPlanner.start(outgoing: c.outgoing, journaled: c.journaled, end: 500, checkpoint: c.checkpoint)
                == c.expected)
    }

    struct ChunkCase: Sendable, CustomTestStringConvertible {
        var name: String
        var sizes: [Int]
        var target: Int, maxEntries: Int
        var expected: [Range<Int>]
        var testDescription: String { name }
    }

    static let chunkCases: [ChunkCase] = [
        .init(name: "empty", sizes: [], target: 100, maxEntries: 10, expected: []),
        .init(name: "one small", sizes: [10], target: 100, maxEntries: 10, expected: [0..<1]),
        .init(name: "fits exactly", sizes: [50, 50], target: 100, maxEntries: 10, expected: [0..<2]),
        .init(name: "one byte over", sizes: [50, 51], target: 100, maxEntries: 10, expected: [0..<1, 1..<2]),
        .init(
            name: "an entry bigger than a segment goes alone", sizes: [10, 500, 10], target: 100, maxEntries: 10,
            expected: [0..<1, 1..<2, 2..<3]),
        .init(
            name: "entry count limit", sizes: [1, 1, 1, 1, 1], target: 100, maxEntries: 2,
            expected: [0..<2, 2..<4, 4..<5]),
        .init(
            name: "many small", sizes: Array(repeating: 30, count: 10), target: 100, maxEntries: 100,
            expected: [0..<3, 3..<6, 6..<9, 9..<10]),
        .init(name: "first entry huge", sizes: [1000], target: 100, maxEntries: 10, expected: [0..<1]),
    ]

    @Test("cutting segments", arguments: chunkCases)
    func chunks(_ c: ChunkCase) {
        let ranges = PushPlanner.chunks(sizes: c.sizes, targetBytes: c.target, maxEntries: c.maxEntries)
        #expect(ranges == c.expected)
        #expect(ranges.flatMap { Array($0) } == Array(c.sizes.indices), "every entry exactly once, in order")
    }

    struct BlobCase: Sendable, CustomTestStringConvertible {
        var name: String
        var images: [ImageBody]
        var local: Set<UInt8>
        var expected: [UInt8]
        var testDescription: String { name }
    }

    static let blobCases: [BlobCase] = [
        .init(name: "every local image", images: [image(1), image(2)], local: [1, 2], expected: [1, 2]),
        .init(name: "bytes not in the store are skipped", images: [image(1), image(2)], local: [2], expected: [2]),
        .init(name: "same bytes twice: once", images: [image(1), image(1)], local: [1], expected: [1]),
        .init(
            name: "Imgur serves it unchanged: still on the remote (Imgur is a copy, not a vault)",
            images: [image(1, imgur: true)], local: [1], expected: [1]),
        .init(name: "Imgur re-encoded it: on the remote", images: [image(1, imgur: false)], local: [1], expected: [1]),
        .init(name: "nothing local", images: [image(1, imgur: true)], local: [], expected: []),
    ]

    @Test("image bytes a push sends", arguments: blobCases)
    func blobs(_ c: BlobCase) {
        let images = c.images.map { ($0.sha256, $0) }
        #expect(PushPlanner.blobs(images, local: Set(c.local.map(digest))) == c.expected.map(digest))
    }

    struct PlanCase: Sendable, CustomTestStringConvertible {
        var name: String
        var checkpoint: SyncCheckpoint
        var ownHead: PushPlanner.OwnHead
        var sizes: [Int]
        var seqs: [Int64]
        var condition: WriteCondition
        var register: Bool
        var testDescription: String { name }
    }

    static let planCases: [PlanCase] = [
        .init(
            name: "first push", checkpoint: checkpoint(), ownHead: .absent, sizes: [10, 20], seqs: [1],
            condition: .createOnly, register: true),
        .init(
            name: "next push replaces under the ETag",
            checkpoint: checkpoint(pushedSeq: 4, headETag: "e", registered: true), ownHead: .current(etag: "e"),
            sizes: [10], seqs: [5], condition: .replacing(etag: "e"), register: false),
        .init(
            name: "a big push cuts several segments",
            checkpoint: checkpoint(pushedSeq: 1, headETag: "e", registered: true), ownHead: .current(etag: "e"),
            sizes: Array(repeating: Segment.targetBytes / 2 + 1, count: 3), seqs: [2, 3, 4],
            condition: .replacing(etag: "e"), register: false),
        .init(
            name: "empty first push still writes a head", checkpoint: checkpoint(), ownHead: .absent, sizes: [],
            seqs: [], condition: .createOnly, register: true),
        .init(
            name: "head that lost its ETag (not registered)", checkpoint: checkpoint(pushedSeq: 2, headETag: "e"),
            ownHead: .current(etag: "e2"),
            sizes: [5], seqs: [3], condition: .replacing(etag: "e2"), register: true),
    ]

    @Test("planning a push", arguments: planCases)
    func plan(_ c: PlanCase) {
        var cp = c.checkpoint
        cp.pulled = [peer: .init(seq: 2, etag: "p", counter: 7)]
        let plan = PushPlanner.plan(
            .init(
                checkpoint: cp, ownHead: c.ownHead, remoteID: "r1", device: me, deviceName: "laptop",
                now: Timestamp(milliseconds: 5_000), chunks: PushPlanner.chunks(sizes: c.sizes), end: 900,
                blobs: [digest(1)]))
        #expect(plan.segments.map(\.seq) == c.seqs)
        #expect(plan.segments.flatMap { Array($0.entries) } == Array(c.sizes.indices))
        let lastSeq = c.seqs.last ?? c.checkpoint.pushedSeq
        #expect(plan.head.seq == lastSeq)
        #expect(plan.head.devices == [me, peer], "the head names the devices we know, so HTTP remotes find each other")
        #expect(plan.headCondition == c.condition)
        #expect(plan.register == c.register)
        #expect(plan.pending.pendingSeq == lastSeq && plan.pending.pendingOffset == 900)
        #expect(plan.pending.pushedSeq == c.checkpoint.pushedSeq, "until the head lands, nothing counts as pushed")
        #expect(plan.committed.pushedSeq == lastSeq && plan.committed.pushedOffset == 900)
        #expect(plan.committed.pendingSeq == nil && plan.committed.registered)
        #expect(plan.blobs == [digest(1)])
    }

    struct HeadAnswerCase: Sendable, CustomTestStringConvertible {
        var name: String
        var result: WriteResult
        var readBack: DeviceHead?
        var expected: PushPlanner.HeadOutcome
        var testDescription: String { name }
    }

    static let sent = head(me, seq: 4, updated: 77_000)
    static let headAnswerCases: [HeadAnswerCase] = [
        .init(name: "written", result: .written(etag: "n"), readBack: nil, expected: .landed(etag: "n")),
        .init(name: "written, no ETag", result: .written(etag: nil), readBack: nil, expected: .landed(etag: nil)),
        .init(
            name: "412, answer was lost: the head is ours", result: .preconditionFailed, readBack: sent,
            expected: .landed(etag: "rb")),
        .init(
            name: "412, another copy wrote a different head", result: .preconditionFailed,
            readBack: head(me, seq: 4, updated: 12), expected: .copied),
        .init(
            name: "412, another copy is further", result: .preconditionFailed,
            readBack: head(me, seq: 9, updated: 77_000), expected: .copied),
        .init(name: "412, head gone", result: .preconditionFailed, readBack: nil, expected: .copied),
    ]

    @Test("the head write's answer", arguments: headAnswerCases)
    func headAnswer(_ c: HeadAnswerCase) {
        var outcome = PushPlanner.headOutcome(c.result)
        if outcome == .readBack { outcome = PushPlanner.judgeReadBack(c.readBack, etag: "rb", sent: Self.sent) }
        #expect(outcome == c.expected)
    }

    @Test(
        "a segment number already taken",
        arguments: [
            ([UInt8]("same".utf8), [UInt8]("same".utf8), PushPlanner.Collision.identical),
            ([UInt8]("old cut".utf8), [UInt8]("new cut".utf8), .replace),
            (nil, [UInt8]("x".utf8), .replace),
            ([UInt8](), [UInt8]("x".utf8), .replace),
        ] as [([UInt8]?, [UInt8], PushPlanner.Collision)])
    func collision(existing: [UInt8]?, ours: [UInt8], expected: PushPlanner.Collision) {
        #expect(PushPlanner.collision(existing: existing, ours: ours) == expected)
    }
}

@Suite("Sync planner: pull")
struct PullPlannerTests {
    @Test(
        "ETags compare weakly",
        arguments: [
            ("\"x\"", "\"x\"", true), ("W/\"x\"", "\"x\"", true), ("\"x\"", "W/\"x\"", true),
            ("W/\"x\"", "W/\"x\"", true),
            ("\"x\"", "\"y\"", false), (nil, "\"x\"", false), ("\"x\"", nil, false), (nil, nil, false),
        ] as [(String?, String?, Bool)])
    func etags(a: String?, b: String?, same: Bool) {
        #expect(PullPlanner.sameETag(a, b) == same)
    }

    struct ListingCase: Sendable, CustomTestStringConvertible {
        var name: String
        var listing: [RemoteEntry]
        var checkpoint: SyncCheckpoint
        var toRead: [PullPlanner.Change]
        var own: String?
        var testDescription: String { name }
    }

    static let b = "\(peer.rawValue).json", c = "\(third.rawValue).json", a = "\(me.rawValue).json"
    static let listingCases: [ListingCase] = [
        .init(
            name: "first pull: every other head", listing: [.init(name: b, etag: "1"), .init(name: c, etag: "2")],
            checkpoint: checkpoint(),
            toRead: [.init(device: peer, etag: "1"), .init(device: third, etag: "2")], own: nil),
        .init(
            name: "unchanged ETags: nothing", listing: [.init(name: b, etag: "1")],
            checkpoint: checkpoint(pulled: [peer: .init(seq: 1, etag: "1")]),
            toRead: [], own: nil),
        .init(
            name: "weak and strong forms are the same", listing: [.init(name: b, etag: "\"1\"")],
            checkpoint: checkpoint(pulled: [peer: .init(seq: 1, etag: "W/\"1\"")]), toRead: [], own: nil),
        .init(
            name: "changed ETag", listing: [.init(name: b, etag: "2")],
            checkpoint: checkpoint(pulled: [peer: .init(seq: 1, etag: "1")]),
            toRead: [.init(device: peer, etag: "2")], own: nil),
        .init(
            name: "listing without ETags: always read", listing: [.init(name: b, etag: nil)],
            checkpoint: checkpoint(pulled: [peer: .init(seq: 1, etag: nil)]),
            toRead: [.init(device: peer, etag: nil)], own: nil),
        .init(
            name: "our own head as we left it", listing: [.init(name: a, etag: "e")],
            checkpoint: checkpoint(headETag: "e"), toRead: [], own: nil),
        .init(
            name: "our own head moved: restored store", listing: [.init(name: a, etag: "f")],
            checkpoint: checkpoint(headETag: "e"), toRead: [], own: "f"),
        .init(
            name: "our own head, never pushed from here: a reinstall", listing: [.init(name: a, etag: "f")],
            checkpoint: checkpoint(), toRead: [], own: "f"),
        .init(
            name: "our own head without ETag", listing: [.init(name: a, etag: nil)],
            checkpoint: checkpoint(headETag: "e"), toRead: [], own: ""),
        .init(
            name: "junk names are ignored",
            listing: [
                .init(name: "notes.txt", etag: "1"), .init(name: "../x.json", etag: "1"),
                .init(name: "ZZ.json", etag: "1"), .init(name: ".json", etag: "1"),
            ],
            checkpoint: checkpoint(), toRead: [], own: nil),
        .init(
            name: "an empty listing", listing: [], checkpoint: checkpoint(pulled: [peer: .init(seq: 4, etag: "1")]),
            toRead: [], own: nil),
    ]

    @Test("heads that moved, from a listing", arguments: listingCases)
    func listing(_ c: ListingCase) {
        let changes = PullPlanner.changedHeads(listing: c.listing, device: me, checkpoint: c.checkpoint)
        #expect(changes.toRead == c.toRead)
        #expect(changes.own == c.own)
    }

    @Test(
        "the ETag a pull remembers for a head: none when it was read moments after it changed (WsgiDAV's are seconds)",
        arguments: [
            ("\"r\"", true, "\"l\"", "\"r\""), (nil, true, "\"l\"", "\"l\""), (nil, true, nil, nil),
            ("\"r\"", false, "\"l\"", nil), (nil, false, "\"l\"", nil),
        ] as [(String?, Bool, String?, String?)])
    func rememberedETag(read: String?, settled: Bool, listed: String?, remembered: String?) {
        let file = RemoteFile(bytes: [], etag: read, etagSettled: settled)
        #expect(PullPlanner.rememberedETag(file, listed: listed) == remembered)
    }

    @Test(
        "heads on a remote that cannot list: numbers decide, not ETags (nginx's are seconds)",
        arguments: [
            (3, 2, true), (2, 2, false), (1, 2, false), (1, 0, true),
        ] as [(Int64, Int64, Bool)])
    func headMoved(seq: Int64, pulledSeq: Int64, moved: Bool) {
        let cp = checkpoint(pulled: pulledSeq > 0 ? [peer: .init(seq: pulledSeq, etag: "same-second")] : [:])
        #expect(PullPlanner.headMoved(head(peer, seq: seq), checkpoint: cp) == moved)
    }

    @Test(
        "our own head read without a listing",
        arguments: [
            (5, 3, "e", true), (3, 3, "e", false), (1, 0, nil, true), (0, 0, nil, true),
        ] as [(Int64, Int64, String?, Bool)])
    func ownHeadMoved(seq: Int64, pushedSeq: Int64, headETag: String?, moved: Bool) {
        #expect(
            PullPlanner.ownHeadMoved(
                head(me, seq: seq), checkpoint: checkpoint(pushedSeq: pushedSeq, headETag: headETag)) == moved)
    }

    struct At: Sendable {
        var device: DeviceID
        var seq: Int64
    }
    static func at(_ device: DeviceID, _ seq: Int64) -> At { At(device: device, seq: seq) }

    struct FetchCase: Sendable, CustomTestStringConvertible {
        var name: String
        var heads: [DeviceHead]
        var pulled: [DeviceID: SyncCheckpoint.Pulled]
        var expected: [At]
        var testDescription: String { name }
    }

    static let fetchCases: [FetchCase] = [
        .init(
            name: "first pull: all segments", heads: [head(peer, seq: 3)], pulled: [:],
            expected: [at(peer, 1), at(peer, 2), at(peer, 3)]),
        .init(
            name: "only the new ones", heads: [head(peer, seq: 5)], pulled: [peer: .init(seq: 3, etag: nil)],
            expected: [at(peer, 4), at(peer, 5)]),
        .init(
            name: "a head that went back (stale server): nothing", heads: [head(peer, seq: 2)],
            pulled: [peer: .init(seq: 3, etag: nil)], expected: []),
        .init(name: "an empty device", heads: [head(peer, seq: 0)], pulled: [:], expected: []),
        .init(
            name: "never our own", heads: [head(me, seq: 4), head(peer, seq: 1)], pulled: [:], expected: [at(peer, 1)]),
        .init(
            name: "a head claiming 10^15 segments is one range, not a list",
            heads: [head(peer, seq: 1_000_000_000_000_000)],
            pulled: [peer: .init(seq: 999_999_999_999_998, etag: nil)],
            expected: [at(peer, 999_999_999_999_999), at(peer, 1_000_000_000_000_000)]),
        .init(
            name: "several devices in order", heads: [head(peer, seq: 1), head(third, seq: 2)],
            pulled: [third: .init(seq: 1, etag: nil)],
            expected: [at(peer, 1), at(third, 2)]),
    ]

    @Test("segments to fetch", arguments: fetchCases)
    func fetches(_ c: FetchCase) {
        let fetches = PullPlanner.fetches(heads: c.heads, device: me, checkpoint: checkpoint(pulled: c.pulled))
        let each = fetches.flatMap { f in f.seqs.map { (f.device, $0) } }
        #expect(each.map(\.0) == c.expected.map(\.device))
        #expect(each.map(\.1) == c.expected.map(\.seq))
        #expect(fetches.allSatisfy { $0.remoteID == "r1" })
    }

    @Test("counters: the highest of each device's own versions")
    func counters() {
        let result = PullPlanner.counters([
            (peer, [version(peer, 2), version(peer, 7), version(third, 40)]),  // third's version relayed by peer
            (third, [version(third, 3)]),
            (peer, [version(peer, 5)]),
        ])
        #expect(result == [peer: 7, third: 3])
    }

    struct AfterCase: Sendable, CustomTestStringConvertible {
        var name: String
        var before: SyncCheckpoint
        var heads: [(head: DeviceHead, etag: String?)]
        var counters: [DeviceID: Int64]
        var merged: (wasAtEnd: Bool, end: Int64)
        var offset: Int64
        var pulled: [DeviceID: SyncCheckpoint.Pulled]
        var testDescription: String { name }
    }

    static let afterCases: [AfterCase] = [
        .init(
            name: "first pull into an empty store", before: checkpoint(), heads: [(head(peer, seq: 2), "e")],
            counters: [peer: 4],
            merged: (true, 700), offset: 700, pulled: [peer: .init(seq: 2, etag: "e", counter: 4)]),
        .init(
            name: "local edits waiting: the offset stays", before: checkpoint(pushedOffset: 100),
            heads: [(head(peer, seq: 2), "e")], counters: [peer: 4],
            merged: (false, 900), offset: 100, pulled: [peer: .init(seq: 2, etag: "e", counter: 4)]),
        .init(
            name: "never goes back", before: checkpoint(pulled: [peer: .init(seq: 5, etag: "old", counter: 9)]),
            heads: [(head(peer, seq: 3), "stale")], counters: [peer: 2], merged: (true, 10), offset: 10,
            pulled: [peer: .init(seq: 5, etag: "stale", counter: 9)]),
        .init(
            name: "our own head is not a pulled device", before: checkpoint(), heads: [(head(me, seq: 3), "x")],
            counters: [:],
            merged: (true, 0), offset: 0, pulled: [:]),
        .init(
            name: "a head with nothing new keeps its counter",
            before: checkpoint(pulled: [peer: .init(seq: 1, etag: "a", counter: 3)]),
            heads: [(head(peer, seq: 1), "b")], counters: [:], merged: (true, 50), offset: 50,
            pulled: [peer: .init(seq: 1, etag: "b", counter: 3)]),
    ]

    @Test("the checkpoint after a pull", arguments: afterCases)
    func after(_ c: AfterCase) {
        let next = PullPlanner.checkpoint(
            after: c.before, heads: c.heads, device: me, counters: c.counters, merged: c.merged)
        #expect(next.pushedOffset == c.offset)
        #expect(next.pulled == c.pulled)
    }

    struct WantedCase: Sendable, CustomTestStringConvertible {
        var name: String
        var incoming: [UInt8], live: [UInt8], have: [UInt8]
        var expected: [UInt8]
        var testDescription: String { name }
    }

    static let wantedCases: [WantedCase] = [
        .init(name: "new pictures", incoming: [1, 2], live: [], have: [], expected: [1, 2]),
        .init(name: "already have them", incoming: [1, 2], live: [], have: [1, 2], expected: []),
        .init(name: "retry what an earlier pull missed", incoming: [], live: [3], have: [], expected: [3]),
        .init(
            name: "incoming first, then retries, each once", incoming: [1], live: [3, 1], have: [], expected: [1, 3]),
        .init(name: "same bytes in two records", incoming: [1, 1], live: [], have: [], expected: [1]),
        .init(name: "nothing", incoming: [], live: [2], have: [2], expected: []),
    ]

    @Test("pictures a pull fetches", arguments: wantedCases)
    func wanted(_ c: WantedCase) {
        let wanted = PullPlanner.wantedImages(
            incoming: c.incoming.map { (digest($0), image($0)) }, live: c.live.map { image($0) },
            have: Set(c.have.map(digest)))
        #expect(wanted.map(\.0) == c.expected.map(digest))
    }

    static let v1 = RemoteManifest(remoteID: String(repeating: "1", count: 32), created: Timestamp(milliseconds: 0))
    static var v1Old: RemoteManifest {
        var m = v1
        m.format = 1
        return m
    }

    @Test(
        "aisync.json",
        arguments: [
            ("push to an empty location", nil, nil, true, "create"),
            ("pull from an empty location", nil, nil, false, "missing"),
            ("pull from a location that was emptied", nil, String(repeating: "1", count: 32), false, "missing"),
            ("the remote we know", v1, String(repeating: "1", count: 32), true, "use"),
            ("a remote we never synced with", v1, nil, false, "use"),
            (
                "its id changed: reset, or a racing first push", v1, String(repeating: "2", count: 32), true,
                "checkReset"
            ),
            ("aisync 1 remote, pushing: raise it", v1Old, nil, true, "raise"),
            ("aisync 1 remote, pulling: leave it", v1Old, nil, false, "use"),
        ] as [(String, RemoteManifest?, String?, Bool, String)])
    func manifest(_ name: String, found: RemoteManifest?, known: String?, create: Bool, expected: String) {
        let action = PullPlanner.manifestAction(found: found, knownID: known, create: create)
        let label =
            switch action {
            case .use: "use"
            case .raise: "raise"
            case .checkReset: "checkReset"
            case .create: "create"
            case .missing: "missing"
            }
        #expect(label == expected, "\(name)")
    }
}

@Suite("Sync planner: restore from a backup")
struct RestorePlannerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var journaled: [Version]
        var onRemote: [Version]
        var diverged: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        .init(
            name: "a restore: nothing new since the backup", journaled: [], onRemote: [version(me, 4), version(me, 5)],
            diverged: 0),
        .init(
            name: "a restore whose journal is a prefix", journaled: [version(me, 4)],
            onRemote: [version(me, 4), version(me, 5)], diverged: 0),
        .init(
            name: "a copy that wrote something else", journaled: [version(me, 4, record: "chat-2")],
            onRemote: [version(me, 4)], diverged: 1),
        .init(
            name: "others' versions never count as diverged", journaled: [version(peer, 9)], onRemote: [], diverged: 0),
        .init(
            name: "two local changes the remote lacks", journaled: [version(me, 6), version(me, 7)],
            onRemote: [version(me, 5)], diverged: 2),
    ]

    @Test("restore or copy", arguments: cases)
    func verdict(_ c: Case) {
        let diverged = RestorePlanner.diverged(journaled: c.journaled, onRemote: Set(c.onRemote.map(\.id)), device: me)
        #expect(diverged.count == c.diverged)
    }

    @Test("the checkpoint after taking our segments back")
    func adopted() {
        let after = RestorePlanner.adopted(checkpoint(remoteID: nil), head: head(me, seq: 6), etag: nil, end: 1234)
        #expect(after.pushedSeq == 6 && after.pushedOffset == 1234 && after.headETag == "" && after.remoteID == "r1")
    }
}

@Suite("Sync planner: Imgur uploads")
struct ImgurPlannerTests {
    private static func rid(_ n: Int) -> RecordID { RecordID("image-\(n)")! }

    struct StartCase: Sendable, CustomTestStringConvertible {
        var name: String
        var live: [(Int, ImageBody)]
        var failed: [UInt8]
        var retryAt: Int64?
        var pending: [Int]
        var copies: Int
        var waitUntil: Int64?
        var testDescription: String { name }
    }

    static let startCases: [StartCase] = [
        .init(name: "nothing live", live: [], failed: [], retryAt: nil, pending: [], copies: 0, waitUntil: nil),
        .init(
            name: "two new images", live: [(1, image(1)), (2, image(2))], failed: [], retryAt: nil, pending: [1, 2],
            copies: 0, waitUntil: nil),
        .init(
            name: "already on Imgur", live: [(1, image(1, imgur: true))], failed: [], retryAt: nil, pending: [],
            copies: 1, waitUntil: nil),
        .init(
            name: "refused before: not retried", live: [(1, image(1)), (2, image(2))], failed: [2], retryAt: nil,
            pending: [1], copies: 0, waitUntil: nil),
        .init(
            name: "rate limit still holds", live: [(1, image(1))], failed: [], retryAt: 2_000, pending: [1], copies: 0,
            waitUntil: 2_000),
        .init(
            name: "rate limit reset exactly now: go", live: [(1, image(1))], failed: [], retryAt: 1_000, pending: [1],
            copies: 0, waitUntil: nil),
        .init(
            name: "rate limit over", live: [(1, image(1))], failed: [], retryAt: 10, pending: [1], copies: 0,
            waitUntil: nil),
        .init(
            name: "same bytes uploaded under another record: reusable",
            live: [(1, image(1, imgur: false)), (2, image(1))], failed: [], retryAt: nil,
            pending: [2], copies: 1, waitUntil: nil),
    ]

    @Test("where uploads stand", arguments: startCases)
    func start(_ c: StartCase) {
        var state = ImgurState()
        state.retryAt = c.retryAt
        for f in c.failed { state.failed[digest(f)] = "too big" }
        let start = ImgurPlanner.start(live: c.live.map { (Self.rid($0.0), $0.1) }, state: state, now: 1_000)
        #expect(start.pending == c.pending.map(Self.rid))
        #expect(start.copies.count == c.copies)
        #expect(start.waitUntil == c.waitUntil)
    }

    @Test(
        "batches: the first alone, then three at a time",
        arguments: [
            (0, 7, 0..<1), (1, 7, 1..<4), (2, 7, nil), (3, 7, nil), (4, 7, 4..<7), (5, 7, nil), (7, 7, nil),
            (0, 1, 0..<1), (1, 2, 1..<2), (4, 5, 4..<5),
        ] as [(Int, Int, Range<Int>?)])
    func batch(n: Int, count: Int, expected: Range<Int>?) {
        #expect(ImgurPlanner.batch(at: n, count: count, concurrency: 3) == expected)
    }

    @Test("every pending image is in exactly one batch", arguments: [0, 1, 2, 3, 4, 5, 10, 31])
    func batchesCover(count: Int) {
        let covered = (0..<count).compactMap { ImgurPlanner.batch(at: $0, count: count, concurrency: 3) }.flatMap {
            Array($0)
        }
        #expect(covered == Array(0..<count))
    }

    struct SourceCase: Sendable, CustomTestStringConvertible {
        var name: String
        var copy: Bool, answered: Bool, maybe: Bool
        var expected: String
        var testDescription: String { name }
    }

    static let sourceCases: [SourceCase] = [
        .init(name: "new", copy: false, answered: false, maybe: false, expected: "upload"),
        .init(name: "same bytes on Imgur already", copy: true, answered: true, maybe: true, expected: "reuse"),
        .init(name: "answered before a crash", copy: false, answered: true, maybe: true, expected: "answered"),
        .init(
            name: "answer lost: look in the account", copy: false, answered: false, maybe: true, expected: "findLost"),
    ]

    @Test("where an Imgur copy comes from", arguments: sourceCases)
    func source(_ c: SourceCase) {
        var state = ImgurState()
        if c.answered {
            state.answered[digest(1)] = .init(id: "a", link: "https://i.imgur.com/a.png", deletehash: nil, size: 1)
        }
        if c.maybe { state.maybeUploaded.insert(digest(1)) }
        let copies = c.copy ? [digest(1): ImageBody.ImgurLocation(id: "c", link: "https://i.imgur.com/c.png")] : [:]
        let label =
            switch ImgurPlanner.source(for: digest(1), copies: copies, state: state) {
            case .reuse: "reuse"
            case .answered: "answered"
            case .findLost: "findLost"
            case .upload: "upload"
            }
        #expect(label == c.expected)
    }

    @Test(
        "what a failure means",
        arguments: [
            (ImgurError.Kind.rateLimited(resetAt: 99), ImgurPlanner.AfterFailure.stopUntil(99)),
            (.rejected(message: "File is over the size limit"), .refused("File is over the size limit")),
            (.auth, .stopForCredential),
            (.unavailable, .keepPending),
            (.damaged, .keepPending),
            (.other, .keepPending),
        ] as [(ImgurError.Kind, ImgurPlanner.AfterFailure)])
    func failure(kind: ImgurError.Kind, expected: ImgurPlanner.AfterFailure) {
        #expect(ImgurPlanner.afterFailure(kind) == expected)
    }
}

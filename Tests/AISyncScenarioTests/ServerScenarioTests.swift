import AISyncTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sync issue's scenario suite, run with the built `aisync` against every kind of remote:
/// a folder (`file://`), Apache httpd + mod_dav, `rclone serve webdav`, WsgiDAV and lighttpd's
/// mod_webdav (WebDAV), nginx with `dav_methods PUT DELETE MKCOL` (plain HTTP, `--plain`, no
/// PROPFIND), and the S3 stores (a SeaweedFS cluster, moto). The two- and three-device
/// scenarios, concurrent edits, a killed push and a wrong password also run over HTTPS
/// (Apache mod_ssl, nginx `ssl`; a private CA given with `--ca-cert`).
///
/// The servers come from `scripts/servers.sh`, started by `scripts/test.sh`; a missing server
/// FAILS these tests (see TestServer.require), it never skips them. Every test works in a
/// fresh remote location of its own, so the whole suite runs in parallel.
@Suite("Server scenarios", .tags(.servers), .needsServers)
struct ServerScenarioTests {
    // MARK: - Two devices

    @Test(
        "two devices: create on A, push, pull on B: identical everywhere, images byte for byte; and back",
        arguments: RemoteKind.allCases + RemoteKind.https)
    func twoDevices(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("two")
        let a = try await Device.make("laptop", remote: remote)
        let b = try await Device.make("desktop", remote: remote)
        defer {
            a.remove()
            b.remove()
        }

        let session = try await Scenario.realisticSession(a)
        let pushed = try await a.sync("push")
        #expect(pushed["pushed"] as? Int ?? 0 >= 10, "push should report the versions it sent: \(pushed)")
        #expect(pushed["blobs"] as? Int == session.images.count, "push should upload every image once: \(pushed)")
        let pulled = try await b.sync("pull")
        #expect(pulled["blobs"] as? Int == session.images.count, "pull should fetch every image: \(pulled)")
        #expect(pulled["conflicts"] as? Int == 0)
        let ids = try await Converge.expectIdentical([a, b], "\(kind): after push on A and pull on B")
        #expect(Set(ids) == Set(session.all), "\(kind): B should have every record of A")
        try await Scenario.expectImageBytes(on: b, session.images, "\(kind): B")

        // Nothing new: a second pull moves nothing.
        let again = try await b.sync("pull")
        #expect(
            again["pulled"] as? Int == 0 && again["blobs"] as? Int == 0,
            "\(kind): a pull with nothing new moved something: \(again)")

        // And back: B edits and adds an image, both sync.
        try await b.ok(["rename", session.chats[0], "Trip ideas (edited on B)"])
        try await b.ok(["chat", "say", session.chats[1], "--role", "assistant", "there lived a fox"])
        let extra = CLIFixtures.writeFile(
            CLIFixtures.data(hex: Scenario.otherPNGHex), in: b.store.directory, name: "other.png")
        let newImage = try await b.ok(["image", "add", extra, "--prompt", "another fox"])
        try await b.sync()
        try await a.sync()
        try await Converge.expectIdentical([a, b], "\(kind): after edits on B and sync on both")
        try await Scenario.expectImageBytes(
            on: a, [newImage: CLIFixtures.data(hex: Scenario.otherPNGHex)], "\(kind): A")
        try await a.ok(["fsck"])
        try await b.ok(["fsck"])
        await remote.remove()
    }

    // MARK: - Concurrent edits

    @Test(
        "concurrent edits of one chat: the same conflict and winner on both; resolve on B closes it everywhere",
        arguments: RemoteKind.allCases + RemoteKind.https)
    func concurrentEdits(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("conflict")
        let a = try await Device.make("laptop", remote: remote)
        let b = try await Device.make("phone", remote: remote)
        defer {
            a.remove()
            b.remove()
        }

        let chat = try await a.ok(["chat", "new", "--title", "Shared plans", "--model", "gpt-4o"])
        try await a.ok(["chat", "say", chat, "--role", "user", "What shall we cook?"])
        try await a.sync("push")
        try await b.sync("pull")

        // Both change the same chat without seeing each other.
        try await a.ok(["rename", chat, "Title from A"])
        try await a.ok(["chat", "say", chat, "--role", "assistant", "Risotto (said on A)"])
        try await b.ok(["rename", chat, "Title from B"])
        try await a.sync()
        try await b.sync()
        try await a.sync()

        let onA = await a.run(["conflicts", "--json"])
        let onB = await b.run(["conflicts", "--json"])
        try #require(onA.succeeded && onB.succeeded, "\(onA)\n\(onB)")
        #expect(onA.stdout == onB.stdout, "\(kind): `conflicts --json` differs:\nA: \(onA.stdout)\nB: \(onB.stdout)")
        let conflicts = try CLIJSON.array(onA)
        try #require(conflicts.count == 1, "\(kind): expected exactly one record in conflict: \(onA.stdout)")
        #expect(conflicts[0]["id"] as? String == chat)
        let versions = try #require(conflicts[0]["versions"] as? [[String: Any]])
        #expect(versions.count == 2, "\(kind): expected two concurrent versions: \(onA.stdout)")
        #expect(
            versions.filter { $0["winner"] as? Bool == true }.count == 1, "\(kind): exactly one winner: \(onA.stdout)")
        // The winner is the last writer: the greatest (time, device).
        let order = versions.map { ($0["time"] as? String ?? "", $0["device"] as? String ?? "") }
        let expectedWinner = versions[order.indices.max { order[$0] < order[$1] }!]
        #expect(
            expectedWinner["winner"] as? Bool == true, "\(kind): the winner should be the last writer: \(onA.stdout)")
        try await Converge.expectIdentical([a, b], "\(kind): in conflict")

        // B keeps the losing version; after B then A sync no conflict is left anywhere.
        let loser = try #require(versions.first { $0["winner"] as? Bool == false })
        let loserVersion = try #require(loser["version"] as? String)
        let idOfA = try await Scenario.deviceID(a)
        let loserTitle = loser["device"] as? String == idOfA ? "Title from A" : "Title from B"
        try await b.ok(["resolve", chat, "--keep", String(loserVersion.prefix(12))])
        try await b.sync()
        try await a.sync()
        for d in [a, b] {
            let c = try await d.conflicts()
            #expect(c.isEmpty, "\(kind): [\(d.label)] conflicts left after resolve and sync: \(c)")
        }
        try await Converge.expectIdentical([a, b], "\(kind): after resolve")
        let shown = try await Scenario.show(a, chat)
        #expect(shown["title"] as? String == loserTitle, "\(kind): resolve should keep the chosen version: \(shown)")
        await remote.remove()
    }

    // MARK: - Edit vs delete

    @Test(
        "edit on A while B deletes the same record: a conflict on both, the edit is not lost",
        arguments: RemoteKind.allCases)
    func editVersusDelete(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("editdel")
        let a = try await Device.make("laptop", remote: remote)
        let b = try await Device.make("phone", remote: remote)
        defer {
            a.remove()
            b.remove()
        }

        // Two records, so that both outcomes happen: the delete after the edit (the delete
        // wins) and the delete before the edit (the edit wins).
        let first = try await a.ok(["chat", "new", "--title", "Deleted last"])
        let second = try await a.ok(["chat", "new", "--title", "Edited last"])
        try await a.sync("push")
        try await b.sync("pull")

        try await a.ok(["chat", "say", first, "--role", "user", "edit of the first on A"])
        try await b.ok(["rm", first])
        try await b.ok(["rm", second])
        try await a.ok(["chat", "say", second, "--role", "user", "edit of the second on A"])
        var edits: [String: String] = [:]
        for id in [first, second] {
            let log = await a.run(["log", id, "--json"])
            try #require(log.succeeded, "\(log)")
            edits[id] = try #require(try CLIJSON.array(log).first?["version"] as? String)
        }
        try await a.sync()
        try await b.sync()
        try await a.sync()

        let onA = await a.run(["conflicts", "--json"])
        let onB = await b.run(["conflicts", "--json"])
        #expect(onA.succeeded && onA.stdout == onB.stdout, "\(kind): `conflicts --json` differs:\nA: \(onA)\nB: \(onB)")
        let conflicts = try CLIJSON.array(onA)
        for id in [first, second] {
            let entry = try #require(
                conflicts.first { $0["id"] as? String == id },
                "\(kind): \(id) should be listed as a conflict: \(onA.stdout)")
            let versions = try #require(entry["versions"] as? [[String: Any]])
            #expect(
                versions.contains { $0["deleted"] as? Bool == true },
                "\(kind): the delete should be one of the versions: \(entry)")
            #expect(
                versions.contains { $0["version"] as? String == edits[id] && $0["deleted"] as? Bool == false },
                "\(kind): the edit \(edits[id] ?? "?") should be one of the versions: \(entry)")
        }
        try await Converge.expectIdentical([a, b], "\(kind): edit vs delete")

        // Nothing lost: the deleter can bring the edit back.
        try await b.ok(["resolve", first, "--keep", edits[first]!])
        try await b.sync()
        try await a.sync()
        for d in [a, b] {
            let shown = try await Scenario.show(d, first)
            let texts = (shown["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
            #expect(texts.contains("edit of the first on A"), "\(kind): [\(d.label)] the edit should be back: \(shown)")
        }
        try await Converge.expectIdentical([a, b], "\(kind): after keeping the edit")
        await remote.remove()
    }

    // MARK: - Three devices, random edits, random sync order

    @Test(
        "three devices with random edits and syncs in random order converge",
        arguments: RemoteKind.allCases + RemoteKind.https)
    func threeDevicesConverge(_ kind: RemoteKind) async throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let replay = "seed \(seed); replay with AISYNC_TEST_SEED=\(seed)"
        let remote = try await TestServer.require(kind).freshRemote("three")
        let devices = [
            try await Device.make("alpha", remote: remote), try await Device.make("beta", remote: remote),
            try await Device.make("gamma", remote: remote),
        ]
        defer { for device in devices { device.remove() } }
        var log: [String] = []
        // The first push makes the location an aisync remote; from then on any device may
        // pull or sync in any order.
        try await devices[0].sync("push")

        for step in 0..<36 {
            let d = devices[Int.random(in: 0..<3, using: &rng)]
            let live = try await d.list(deleted: false)
            let chats = live.filter { $0["kind"] as? String == "chat" }.compactMap { $0["id"] as? String }
            let any = live.compactMap { $0["id"] as? String }
            let roll = Int.random(in: 0..<100, using: &rng)
            var args: [String]
            switch roll {
            case 0..<25:
                args = [["push"], ["pull"], ["sync"], ["sync"]][Int.random(in: 0..<4, using: &rng)]
            case 25..<40 where any.count < 12, 25..<40 where chats.isEmpty:
                args = [
                    "chat", "new", "--title", "chat \(step) by \(d.label)", "--model",
                    ["gpt-4o", "davinci", "curie"][step % 3],
                ]
            case 25..<40,
                40..<60 where !chats.isEmpty:
                args = [
                    "chat", "say", chats.randomElement(using: &rng)!, "--role", "user",
                    "message \(step) from \(d.label)",
                ]
            case 60..<75 where !any.isEmpty:
                args = ["rename", any.randomElement(using: &rng)!, "renamed at \(step) by \(d.label)"]
            case 75..<85 where !any.isEmpty:
                args = ["favorite", any.randomElement(using: &rng)!] + (Bool.random(using: &rng) ? [] : ["--off"])
            case 85..<91 where !any.isEmpty:
                args = ["rm", any.randomElement(using: &rng)!]
            case 91..<95:
                let image = CLIFixtures.allImages[step % 3]
                args = [
                    "image", "add", CLIFixtures.write(image, in: d.store.directory, as: "\(step)-\(image.name)"),
                    "--prompt", "step \(step)",
                ]
            case 95..<100:
                let conflicts = try await d.conflicts()
                if let c = conflicts.randomElement(using: &rng), let id = c["id"] as? String,
                    let v = (c["versions"] as? [[String: Any]])?.randomElement(using: &rng)?["version"] as? String
                {
                    args = ["resolve", id, "--keep", v]
                } else {
                    args = ["sync"]
                }
            default:
                args = ["chat", "new", "--title", "chat \(step) by \(d.label)"]
            }
            log.append("\(d.label): \(args.joined(separator: " "))")
            let r = await d.run(args)
            try #require(
                r.succeeded, "\(kind), \(replay), step \(step): \(r)\nsteps so far:\n\(log.joined(separator: "\n"))")
        }
        // A final round of syncs: after alpha, beta, gamma, gamma has everything; alpha and
        // beta get it on the second pass.
        for d in devices + devices.prefix(2) {
            try await d.sync("sync", "\(replay), final round")
        }
        let ids = try await Converge.expectIdentical(
            devices, "\(kind), \(replay)\nsteps:\n\(log.joined(separator: "\n"))")
        #expect(!ids.isEmpty)
        for d in devices { try await d.ok(["fsck"]) }
        await remote.remove()
    }

    // MARK: - Restore after reinstall

    @Test(
        "restore after reinstall: a brand-new store gets every record and image back with one pull",
        arguments: RemoteKind.allCases)
    func restoreAfterReinstall(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("restore")
        let a = try await Device.make("old-laptop", remote: remote)
        let b = try await Device.make("phone", remote: remote)
        defer {
            a.remove()
            b.remove()
        }
        let session = try await Scenario.realisticSession(a)
        try await a.sync("push")
        let fromB = try await b.ok(["chat", "new", "--title", "Made on the phone"])
        let extra = CLIFixtures.writeFile(
            CLIFixtures.data(hex: Scenario.otherPNGHex), in: b.store.directory, name: "other.png")
        let imageFromB = try await b.ok(["image", "add", extra])
        try await b.sync()
        try await a.sync()

        // The laptop is wiped; a new store with the same remote, and one pull.
        let fresh = try await Device.make("new-laptop", remote: remote)
        defer { fresh.remove() }
        let report = try await fresh.sync("pull")
        #expect(report["blobs"] as? Int == session.images.count + 1, "\(kind): every image should come back: \(report)")
        let ids = try await Converge.expectIdentical([a, fresh], "\(kind): restored store vs the original")
        #expect(Set(ids) == Set(session.all + [fromB, imageFromB]), "\(kind): restored ids: \(ids)")
        var images = session.images
        images[imageFromB] = CLIFixtures.data(hex: Scenario.otherPNGHex)
        try await Scenario.expectImageBytes(on: fresh, images, "\(kind): restored")
        try await fresh.ok(["fsck"])
        await remote.remove()
    }

    // MARK: - Killed push

    @Test(
        "a push killed at random moments (SIGKILL): the remote stays valid, pushing again completes it",
        arguments: RemoteKind.allCases + RemoteKind.https)
    func killedPush(_ kind: RemoteKind) async throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let replay = "seed \(seed); replay with AISYNC_TEST_SEED=\(seed)"
        let remote = try await TestServer.require(kind).freshRemote("killed")
        let a = try await Device.make("source", remote: remote)
        defer { a.remove() }

        // The manifest, three images (blobs go first), 3000 chats (a 2 MB segment), the head
        // and the device index: several remote writes for the kill to land between.
        var images: [String: Data] = [:]
        for image in CLIFixtures.allImages {
            images[try await a.ok(["image", "add", CLIFixtures.write(image, in: a.store.directory)])] = image.bytes
        }
        try await a.generate(3000)
        let last = try await a.ok(["chat", "new", "--title", "The last chat"])
        try await a.ok(["chat", "say", last, "--role", "user", "Still here after the kills?"])
        var total = CLIFixtures.allImages.count + 3001

        // A push spends most of its time preparing segments locally, then writes everything
        // in a short burst: manifest, blobs, segment, head, device index, local checkpoint.
        // So each round picks a file the push writes and kills it a random few milliseconds
        // after that file appears on the remote (or, sometimes, at a random time), to cut
        // pushes off between any two of their writes.
        let device = try await Scenario.deviceID(a)
        var markers = ["aisync.json", "segments/\(device)/1.seg", "heads/\(device).json", "devices.json"]
        for image in CLIFixtures.allImages {
            let sha = try CLIFixtures.sha256(image.bytes)
            markers.append("objects/\(sha.prefix(2))/\(sha)")
        }
        var estimate = 1500.0
        var kills: [String] = []
        // Up to 10 rounds for two kills: a push that finishes its burst of writes before
        // the kill lands (more often the faster pushes get) just makes another round.
        for round in 0..<10 where kills.count < 2 {
            var candidates: [String?] = [nil]
            for m in markers where !(try await remote.fileExists(m)) { candidates.append(m) }
            let marker = candidates.randomElement(using: &rng)!
            let extra = Double.random(in: 0...15, using: &rng)
            let delay = Double.random(in: 5...max(10, estimate), using: &rng)
            let started = Date()
            let push = try a.start(["push"])
            var seen: Date?
            while push.isRunning {
                if let marker {
                    if seen == nil, try await remote.fileExists(marker) { seen = Date() }
                    if let seen, Date().timeIntervalSince(seen) * 1000 >= extra { break }
                } else if Date().timeIntervalSince(started) * 1000 >= delay {
                    break
                }
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            if push.isRunning { kill(push.pid, SIGKILL) }
            let took = Date().timeIntervalSince(started) * 1000
            let r = await ProcessGate.run { push.wait(timeout: 300) }
            if !r.signaled {
                // It finished before the kill: then it must have succeeded. Give the next
                // round something to push.
                try #require(r.succeeded, "\(kind), \(replay): push round \(round) failed: \(r)")
                if marker == nil { estimate = min(estimate, took * 0.9) }
                try await a.generate(500)
                total += 500
                continue
            }
            let when = marker.map { "\(Int(extra)) ms after \($0) appeared" } ?? "after \(Int(delay)) ms"
            kills.append("round \(round): killed \(when)")
            try await Scenario.expectValidRemote(
                remote, atMost: total, "\(kind), \(replay), after \(kills.joined(separator: ", "))")
        }
        print("killed pushes on \(kind) (\(replay)): \(kills.isEmpty ? "none" : kills.joined(separator: "; "))")
        #expect(!kills.isEmpty, "\(kind), \(replay): every push finished before its kill; none was cut off")
        // Pushing again completes the job.
        let finish = await a.run(["push", "--json"])
        try #require(finish.succeeded, "\(kind), \(replay): the push after \(kills) failed: \(finish)")
        let again = try await a.sync("push")
        #expect(again["pushed"] as? Int == 0, "\(kind): a push after a complete push should send nothing: \(again)")
        let source = await a.run(["list", "--json", "--deleted"])
        try #require(source.succeeded)
        #expect(try CLIJSON.array(source).count == total)

        // A fresh store pulls exactly all records.
        let fresh = try await Device.make("fresh", remote: remote)
        defer { fresh.remove() }
        try await fresh.sync("pull", "\(replay), after \(kills)")
        let restored = await fresh.run(["list", "--json", "--deleted"])
        let same = restored.stdout == source.stdout
        #expect(
            same,
            "\(kind), \(replay): the fresh store's records differ from the source (kills: \(kills)); \(restored.stdout.count) vs \(source.stdout.count) bytes"
        )
        for id in [last] + Array(images.keys) {
            let s1 = await a.run(["show", id, "--json"])
            let s2 = await fresh.run(["show", id, "--json"])
            #expect(s1.succeeded && s1.stdout == s2.stdout, "\(kind): show \(id) differs")
        }
        try await Scenario.expectImageBytes(on: fresh, images, "\(kind): after the killed pushes")
        try await fresh.ok(["fsck"])
        await remote.remove()
    }

    @Test(
        "a first push killed right after its head is written: pushing again completes it, and a new store finds everything",
        arguments: RemoteKind.allCases)
    func killedAfterHead(_ kind: RemoteKind) async throws {
        let server = try TestServer.require(kind)
        // The window between the head and the device's registration in devices.json is a
        // few requests wide: a few attempts, each killing as soon as the head appears.
        var hit = false
        for attempt in 0..<4 where !hit {
            let remote = try await server.freshRemote("headkill")
            let a = try await Device.make("source", remote: remote)
            defer { a.remove() }
            try await a.generate(300)
            let head = "heads/\(try await Scenario.deviceID(a)).json"
            let push = try a.start(["push"])
            while push.isRunning, !(try await remote.fileExists(head)) {}
            if push.isRunning { kill(push.pid, SIGKILL) }
            let r = await ProcessGate.run { push.wait(timeout: 120) }
            guard r.signaled else {
                try #require(r.succeeded, "\(kind): \(r)")
                await remote.remove()
                continue
            }
            let registered = try await remote.fileExists("devices.json")
            hit = !registered
            let context =
                "\(kind), attempt \(attempt): killed after the head appeared, devices.json \(registered ? "written" : "not written yet")"
            try await a.sync("push", context)
            let again = try await a.sync("push", context)
            #expect(again["pushed"] as? Int == 0, "\(context): \(again)")
            let fresh = try await Device.make("fresh", remote: remote)
            defer { fresh.remove() }
            try await fresh.sync("pull", context)
            let count = try await fresh.list().count
            #expect(count == 300, "\(context): a new store should find all 300 chats on the remote, found \(count)")
            await remote.remove()
        }
        print(
            "killed after head on \(kind): \(hit ? "killed before the device registered" : "the kill never landed before registration")"
        )
    }

    // MARK: - Two first pushes at the same moment

    @Test(
        "two devices pushing for the first time at the same moment both succeed and see each other",
        arguments: RemoteKind.allCases)
    func concurrentFirstPush(_ kind: RemoteKind) async throws {
        let server = try TestServer.require(kind)
        // A race: several rounds, each on a fresh location.
        for round in 0..<5 {
            let remote = try await server.freshRemote("race")
            let e = try await Device.make("east", remote: remote)
            let w = try await Device.make("west", remote: remote)
            defer {
                e.remove()
                w.remove()
            }
            var mine: [String] = []
            var theirs: [String] = []
            for n in 0..<2 {
                mine.append(try await e.ok(["chat", "new", "--title", "east \(n)"]))
                theirs.append(try await w.ok(["chat", "new", "--title", "west \(n)"]))
            }
            theirs.append(try await w.ok(["image", "add", CLIFixtures.write(CLIFixtures.png, in: w.store.directory)]))

            let pe = try e.start(["push", "--json"])
            let pw = try w.start(["push", "--json"])
            async let re = ProcessGate.run { pe.wait(timeout: 120) }
            async let rw = ProcessGate.run { pw.wait(timeout: 120) }
            let (r1, r2) = await (re, rw)
            #expect(r1.succeeded && r2.succeeded, "\(kind), round \(round): concurrent first pushes:\n\(r1)\n\(r2)")

            for d in [e, w, e] {
                let r = await d.run(["sync", "--json"])
                #expect(
                    r.succeeded, "\(kind), round \(round): [\(d.label)] sync after the concurrent first pushes: \(r)")
            }
            let east = Set(try await e.ids())
            let west = Set(try await w.ids())
            let all = Set(mine + theirs)
            #expect(
                east == all && west == all,
                "\(kind), round \(round): each device should see both devices' records: east \(east.sorted()), west \(west.sorted()), expected \(all.sorted())"
            )
            if east != all || west != all {
                await remote.remove()
                break
            }
            if round == 0 { try await Converge.expectIdentical([e, w], "\(kind), round \(round)") }
            await remote.remove()
        }
    }

    // MARK: - Updates in quick succession

    @Test("updates pushed in quick succession (same second) are all pulled", arguments: RemoteKind.allCases)
    func quickSuccession(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("quick")
        let a = try await Device.make("writer", remote: remote)
        let b = try await Device.make("reader", remote: remote)
        defer {
            a.remove()
            b.remove()
        }
        let chat = try await a.ok(["chat", "new", "--title", "round 0"])
        try await a.sync("push")
        try await b.sync("pull")
        let headPath = "heads/\(try await Scenario.deviceID(a)).json"
        // Four rounds of rename-push / pull end to end. The case nginx makes hard (a head
        // rewritten within one second keeps its ETag) is decided by PullPlanner.headMoved —
        // numbers, not ETags — and table-tested in SyncPlannerTests; ServerContractTests checks
        // that each server's ETags behave as the planner assumes.
        var etags = [try await remote.etag(headPath)]
        var repeatPending = false
        let maxRounds = 4
        for round in 1...maxRounds {
            async let renamed = a.runNow(["rename", chat, "round \(round)"])
            async let pulled = b.runNow(["pull"])
            let (rename, pull) = await (renamed, pulled)
            try #require(rename.succeeded && pull.succeeded, "\(rename)\n\(pull)")
            // A pushes again at once; B's state is read meanwhile.
            async let pushed = a.runNow(["push"])
            async let shown = b.runNow(["show", chat, "--json"])
            let (push, show) = await (pushed, shown)
            try #require(push.succeeded && show.succeeded, "\(push)\n\(show)")
            let title = try CLIJSON.object(show)["title"] as? String
            let note = repeatPending ? " (A's head kept the ETag \(etags[round - 1] ?? "?") across its last push)" : ""
            #expect(
                title == "round \(round - 1)",
                "\(kind): after A's push of round \(round - 1), B's pull should show it, but B shows \(title ?? "nothing")\(note)"
            )
            etags.append(try await remote.etag(headPath))
            repeatPending = etags[round] != nil && etags[round] == etags[round - 1]
        }
        await remote.remove()
    }

    /// A pushes, B pulls while A pushes again, B pulls: each round starts on a second's
    /// boundary, so A's two pushes usually land in one second, around B's read of A's head. On
    /// WsgiDAV, whose ETag is inode, whole-second mtime and size, the head then keeps its ETag,
    /// and a B that trusted the ETag it read would skip that head from then on
    /// (PullPlanner.rememberedETag). SyncEngineTests pins that case deterministically,
    /// ServerContractTests WsgiDAV's ETags and dates; here every WebDAV server must converge.
    @Test(
        "a pull between two pushes in one second: the next pull gets the second push",
        arguments: RemoteKind.webdav)
    func pullBetweenTwoPushesInOneSecond(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("same-second")
        let a = try await Device.make("writer", remote: remote)
        let b = try await Device.make("reader", remote: remote)
        defer {
            a.remove()
            b.remove()
        }
        let chat = try await a.ok(["chat", "new", "--title", "r0"])
        try await a.sync("push")
        try await b.sync("pull")
        let headPath = "heads/\(try await Scenario.deviceID(a)).json"
        // A's commands run in-process (milliseconds each); B's pull is a process of its own.
        func onA(_ arguments: [String]) async throws {
            let r = await a.store.invoke(arguments, environment: a.environment)
            try #require(r.succeeded, "[writer] \(r)")
        }
        var sameSecond = 0
        for round in 1...5 {
            let fraction = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1)
            try await Task.sleep(for: .milliseconds(Int((1 - fraction) * 1000) + 5))
            try await onA(["rename", chat, "r\(round)a"])
            try await onA(["push"])
            let first = try await remote.etag(headPath)
            async let pulled = b.runNow(["pull"])
            try await Task.sleep(for: .milliseconds(60))
            try await onA(["rename", chat, "r\(round)b"])
            try await onA(["push"])
            if first != nil, try await remote.etag(headPath) == first { sameSecond += 1 }
            let pull = await pulled
            try #require(pull.succeeded, "\(pull)")
            try await b.sync("pull")
            let shown = try CLIJSON.object(try await b.runNow(["show", chat, "--json"]))
            #expect(
                shown["title"] as? String == "r\(round)b",
                "\(kind), round \(round): B missed A's last push (in \(sameSecond) rounds so far A's two pushes kept the head's ETag)"
            )
        }
        await remote.remove()
    }

    // MARK: - Errors users will meet

    @Test(
        "wrong password: exit 77, one Error line, no secret printed, store unchanged",
        arguments: RemoteKind.servers + RemoteKind.https)
    func wrongPassword(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("auth")
        let a = try await Device.make("owner", remote: remote)
        let b = try await Device.make("intruder", remote: remote)
        defer {
            a.remove()
            b.remove()
        }
        try await a.ok(["chat", "new", "--title", "private"])
        try await a.sync("push")
        try await b.ok(["chat", "new", "--title", "local only"])

        let wrong = "wrong-\(UUID().uuidString.prefix(8))"
        for device in [a, b] {
            for verb in ["push", "pull", "sync"] {
                if device.label == "owner" {
                    try await device.ok(["rename", try await device.ids()[0], "changed before \(verb)"])
                }
                let before = device.fingerprint()
                let r = await device.run([verb], environment: ["AISYNC_PASSWORD": wrong])
                CLIExpect.cleanError(r, code: 77)
                #expect(
                    !r.stderr.contains(wrong) && !r.stderr.contains(remote.server.password),
                    "\(kind): a password was printed: \(r)")
                #expect(
                    device.fingerprint() == before,
                    "\(kind): [\(device.label)] \(verb) with a wrong password changed the store")
            }
        }
        await remote.remove()
    }

    @Test(
        "wrong URL: a missing folder or collection, or nginx added without --plain, is a clear error",
        arguments: RemoteKind.allCases)
    func wrongURL(_ kind: RemoteKind) async throws {
        let server = try TestServer.require(kind)
        switch kind {
        case .folder, .apache, .rclone, .wsgidav, .lighttpd, .apacheTLS:
            // A location that does not exist: aisync never creates the remote's root.
            let missing =
                kind == .folder
                ? try server.unreachableURL() : "\(server.baseURL)/missing-\(UUID().uuidString.lowercased())/aisync"
            let remote = TestRemote(server: server, url: missing, folderPath: nil)
            let d = try await Device.make("lost", remote: remote)
            defer { d.remove() }
            try await d.ok(["chat", "new", "--title", "kept"])
            let before = d.fingerprint()
            let push = await d.run(["push"])
            CLIExpect.cleanError(push, code: kind == .folder ? 69 : 78, mentioning: ["does not exist"])
            let pull = await d.run(["pull"])
            CLIExpect.cleanError(pull, code: kind == .folder ? 69 : 66)
            #expect(d.fingerprint() == before, "\(kind): a failed push/pull changed the store")
            if kind != .folder {
                #expect(!(try await remote.fileExists("aisync.json")), "\(kind): nothing may be created at a wrong URL")
            }
        case .seaweedfs, .moto:
            // A bucket that does not exist: aisync never creates one.
            let remote = TestRemote(
                server: server, url: "s3://missing-\(UUID().uuidString.lowercased().prefix(13))/aisync",
                folderPath: nil)
            let d = try await Device.make("lost", remote: remote)
            defer { d.remove() }
            try await d.ok(["chat", "new", "--title", "kept"])
            let before = d.fingerprint()
            let push = await d.run(["push"])
            CLIExpect.cleanError(push, code: 66, mentioning: ["does not exist"])
            let pull = await d.run(["pull"])
            CLIExpect.cleanError(pull, code: 66, mentioning: ["does not exist"])
            #expect(d.fingerprint() == before, "\(kind): a failed push/pull changed the store")
        case .nginx, .nginxTLS:
            // A remote on nginx made by a --plain device, then a device that forgot --plain.
            let remote = try await server.freshRemote("noplain")
            let good = try await Device.make("plain", remote: remote)
            let bad = try await Device.make("webdav", remote: remote, plain: false)
            defer {
                good.remove()
                bad.remove()
            }
            try await good.ok(["chat", "new", "--title", "on nginx"])
            try await good.sync("push")
            try await bad.ok(["chat", "new", "--title", "local"])
            let before = bad.fingerprint()
            for verb in ["pull", "sync"] {
                let r = await bad.run([verb])
                CLIExpect.cleanError(r, code: 78, mentioning: ["--plain"])
            }
            #expect(bad.fingerprint() == before, "nginx: a failed pull changed the store")
            // A first push without --plain must not "succeed" into a remote this device can
            // never pull from.
            let fresh = try await server.freshRemote("noplain-first")
            let first = try await Device.make("webdav-first", remote: fresh, plain: false)
            defer { first.remove() }
            try await first.ok(["chat", "new", "--title", "local"])
            let push = await first.run(["push"])
            #expect(
                push.exitCode == 78,
                "nginx: the first push to a server that cannot list, by a device that added it without --plain, should fail with exit 78 and a hint to use --plain; every later pull or sync of this device fails: \(push)"
            )
            if push.exitCode != 0 { CLIExpect.cleanError(push, code: 78, mentioning: ["--plain"]) }
            await remote.remove()
            await fresh.remove()
        }
    }

    @Test(
        "pulling from a location that is not an aisync remote is an error and deletes nothing",
        arguments: RemoteKind.allCases)
    func notAnAISyncRemote(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("empty")
        let d = try await Device.make("careful", remote: remote)
        defer { d.remove() }
        let kept = try await d.ok(["chat", "new", "--title", "must survive"])
        let before = d.fingerprint()
        let r = await d.run(["pull"])
        CLIExpect.cleanError(r, code: 66, mentioning: ["not a sync remote"])
        #expect(d.fingerprint() == before)
        #expect(try await d.ids() == [kept])
        await remote.remove()
    }

    @Test("server down (nothing listening) or folder gone: exit 69, store unchanged", arguments: RemoteKind.allCases)
    func serverDown(_ kind: RemoteKind) async throws {
        let server = try TestServer.require(kind)
        let remote: TestRemote
        if kind == .folder {
            // A folder that synced fine, then went away (an unplugged USB stick).
            remote = try await server.freshRemote("unplugged")
        } else {
            remote = try server.unreachableRemote()
        }
        let d = try await Device.make("offline", remote: remote)
        defer { d.remove() }
        try await d.ok(["chat", "new", "--title", "written offline"])
        if kind == .folder {
            try await d.sync("push")
            try await d.ok(["chat", "new", "--title", "written after unplugging"])
            await remote.remove()
        }
        let before = d.fingerprint()
        let started = Date()
        for verb in ["push", "pull"] {
            let r = await d.run([verb])
            CLIExpect.cleanError(r, code: 69)
        }
        #expect(d.fingerprint() == before, "\(kind): a failed sync changed the store")
        #expect(Date().timeIntervalSince(started) < 60, "\(kind): giving up on a dead server took too long")
        let list = try await d.list()
        #expect(!list.isEmpty)
    }
}

/// Shared steps of the scenarios.
enum Scenario {
    /// A second, different PNG (1x1), so two devices add different images.
    static let otherPNGHex =
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c49444154789c631068f80000022401816f91e4640000000049454e44ae426082"

    struct Session {
        var chats: [String]
        /// image id → original bytes
        var images: [String: Data]
        var story: String
        var deleted: String
        var all: [String] { chats + Array(images.keys) + [story, deleted] }
    }

    /// Chats with messages (one from stdin), three images, a story they illustrate, a rename,
    /// favorites and a delete: what a user makes.
    static func realisticSession(_ d: Device) async throws -> Session {
        let c1 = try await d.ok(["chat", "new", "--title", "Trip ideas", "--model", "gpt-4o"])
        try await d.ok(["chat", "say", c1, "--role", "system", "You are a helpful travel agent."])
        try await d.ok(["chat", "say", c1, "--role", "user", "Where should I go in May? 🌍"])
        try await d.ok(
            ["chat", "say", c1, "--role", "assistant", "-"],
            stdin: Data("Try Lisbon:\n- mild weather\n- \"pastéis de nata\"\n".utf8))
        let c2 = try await d.ok(["chat", "new", "--title", "Old completions", "--model", "davinci"])
        try await d.ok(["chat", "say", c2, "--role", "user", "Once upon a time"])
        let c3 = try await d.ok(["chat", "new", "--title", "Scratch"])
        var images: [String: Data] = [:]
        var order: [String] = []
        for (n, image) in CLIFixtures.allImages.enumerated() {
            let path = CLIFixtures.write(image, in: d.store.directory)
            let id = try await d.ok([
                "image", "add", path, "--prompt", "prompt for \(image.name)", "--model",
                n == 0 ? "dall-e-3" : "dall-e-2",
            ])
            images[id] = image.bytes
            order.append(id)
        }
        let story = try await d.ok([
            "story", "new", "--title", "The Fox", "--moral", "Be kind",
            "--page", "Once upon a time", "--page", "a fox met a crow", "--page", "The end",
            "--image", order[0], "--image", order[1],
        ])
        try await d.ok(["rename", c2, "Old completions (renamed)"])
        try await d.ok(["favorite", c1])
        try await d.ok(["favorite", order[2]])
        try await d.ok(["rm", c3])
        return Session(chats: [c1, c2], images: images, story: story, deleted: c3)
    }

    /// `image save` gives exactly the original bytes.
    static func expectImageBytes(
        on d: Device, _ images: [String: Data], _ context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for (id, bytes) in images {
            let target = "\(d.store.directory)/check-\(id)"
            let r = await d.run(["image", "save", id, target])
            #expect(r.succeeded, "\(context): image save \(id): \(r)", sourceLocation: sourceLocation)
            #expect(
                FileManager.default.contents(atPath: target) == bytes,
                "\(context): image \(id) is not byte for byte the original", sourceLocation: sourceLocation)
            try? FileManager.default.removeItem(atPath: target)
        }
    }

    static func show(_ d: Device, _ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> [String: Any]
    {
        let r = await d.run(["show", id, "--json"])
        try #require(r.succeeded, "[\(d.label)] show \(id): \(r)", sourceLocation: sourceLocation)
        return try CLIJSON.object(r, sourceLocation: sourceLocation)
    }

    static func deviceID(_ d: Device) async throws -> String {
        let config = try #require(FileManager.default.contents(atPath: d.store.configPath))
        let object = try #require(try JSONSerialization.jsonObject(with: config) as? [String: Any])
        let device = object["device"] as? [String: Any]
        return try #require(device?["id"] as? String, "no device id in \(String(decoding: config, as: UTF8.self))")
    }

    /// A remote is valid when a brand-new store pulls from it without error (or it is still
    /// empty: nothing, not even aisync.json, was written) and gets a sound store.
    static func expectValidRemote(
        _ remote: TestRemote, atMost total: Int, _ context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let probe = try await Device.make("probe", remote: remote, sourceLocation: sourceLocation)
        defer { probe.remove() }
        let r = await probe.run(["pull", "--json"])
        if r.exitCode == 66, !(try await remote.fileExists("aisync.json")) { return }
        try #require(
            r.succeeded, "\(context): a fresh store cannot pull from the remote: \(r)", sourceLocation: sourceLocation)
        let count = try await probe.list().count
        #expect(
            count <= total, "\(context): the remote holds more records (\(count)) than were pushed (\(total))",
            sourceLocation: sourceLocation)
    }
}

import AISyncTestSupport
import Foundation
import Testing

/// Issue 11: a pull merges a batch of segments at a time and checkpoints after each, so memory
/// stays one batch and a pull cut off part-way resumes where it stopped instead of starting
/// over; a sync with nothing new reads neither the whole index nor every image record.
@Suite("Streaming pull", .tags(.python), .needsPython)
struct StreamingPullTests {
    /// A remote with two segments (more than one segment's worth of chats), pushed by `laptop`.
    private func twoSegmentRemote() throws -> (laptop: CLIStore, remote: String) {
        let laptop = try CLIHarness.makeStore(deviceName: "laptop")
        let remote = "\(laptop.directory)/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        // A generated chat is about 750 bytes: 7,000 of them fill more than one 4 MB segment.
        try laptop.generate(7000)
        try laptop.ok(["remote", "add", "usb", "file://\(remote)"])
        let push = try CLIJSON.object(laptop.run(["push", "--json"]))
        #expect(push["segments"] as? Int == 2, "\(push)")
        return (laptop, remote)
    }

    @Test func aPullCutOffPartWayKeepsWhatItMergedAndResumesAfterIt() throws {
        let (laptop, remote) = try twoSegmentRemote()
        defer { laptop.remove() }
        let devices = try FileManager.default.contentsOfDirectory(atPath: "\(remote)/segments")
        try #require(devices.count == 1)
        let segments = "\(remote)/segments/\(devices[0])"
        let second = "\(segments)/2.seg"
        let saved = try Data(contentsOf: URL(fileURLWithPath: second))
        try FileManager.default.removeItem(atPath: second)

        let phone = CLIStore(directory: laptop.directory, path: "\(laptop.directory)/phone")
        try phone.ok(["init", "--name", "phone"])
        try phone.ok(["remote", "add", "usb", "file://\(remote)"])
        let cut = phone.run(["pull"])
        #expect(cut.exitCode == 65 && cut.stderr.contains("2.seg is missing"), "\(cut)")
        let firstBatch = try CLIJSON.array(phone.run(["list", "--json"])).count
        #expect(firstBatch > 0 && firstBatch < 7000, "the first segment's chats are kept: \(firstBatch)")

        try saved.write(to: URL(fileURLWithPath: second))
        let resumed = try CLIJSON.object(phone.run(["pull", "--json"]))
        #expect(resumed["segments"] as? Int == 1, "only the segment it lacked is fetched again: \(resumed)")
        #expect(resumed["pulled"] as? Int == 7000 - firstBatch)
        #expect(try CLIJSON.array(phone.run(["list", "--json"])).count == 7000)
        #expect(phone.run(["fsck"]).exitCode == 0)
    }

    @Test func aSyncWithNothingNewLeavesTheIndexAndImageListAlone() throws {
        let (laptop, remote) = try twoSegmentRemote()
        defer { laptop.remove() }
        let phone = CLIStore(directory: laptop.directory, path: "\(laptop.directory)/phone")
        try phone.ok(["init", "--name", "phone"])
        try phone.ok(["remote", "add", "usb", "file://\(remote)"])
        try phone.ok(["sync"])
        try phone.ok(["sync"])
        // The pull recorded that no picture is missing; the index counts conflicts in its header.
        let missing = try String(contentsOfFile: "\(phone.path)/sync/missing-images.json", encoding: .utf8)
        #expect(missing.contains("\"images\":[]"), "\(missing)")
        let schema = SchemaValidator.validate(
            "missing-images", files: ["\(phone.path)/sync/missing-images.json"], canonical: true)
        #expect(schema.passed, "\(schema)")
        let index = "\(phone.path)/index/records.v2"
        let header = try String(contentsOfFile: index, encoding: .utf8).prefix { $0 != "\n" }
        let fields = header.split(separator: "\t")
        #expect(
            fields.count == 10 && fields[7] == "0" && fields[8] == "7000", "conflicts, records in the header: \(header)"
        )
        let before = try FileManager.default.attributesOfItem(atPath: index)[.modificationDate] as? Date
        let idle = try CLIJSON.object(phone.run(["sync", "--json"]))
        #expect(idle["pulled"] as? Int == 0 && idle["pushed"] as? Int == 0 && idle["conflicts"] as? Int == 0, "\(idle)")
        #expect(try FileManager.default.attributesOfItem(atPath: index)[.modificationDate] as? Date == before)
    }
}

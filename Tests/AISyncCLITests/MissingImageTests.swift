import AISyncTestSupport
import Foundation
import Testing

/// A picture whose bytes the remote lacks is a state, not damage (issue 10): pull warns and
/// exits 0, `status` and `fsck` report it as not yet downloaded (fsck stays sound), and a
/// later pull fetches it once the remote has it.
@Suite("Images not yet downloaded", .tags(.python), .needsPython)
struct MissingImageTests {
    @Test func missingOnTheRemoteIsAStateNotDamage() async throws {
        let laptop = try CLIHarness.makeStore(deviceName: "laptop")
        defer { laptop.remove() }
        let remote = "\(laptop.directory)/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        let png = "\(laptop.directory)/red.png"
        try CLIFixtures.png.bytes.write(to: URL(fileURLWithPath: png))
        let sha = try CLIFixtures.sha256(ofFile: png)
        let image = try await laptop.invokeOK(["image", "add", png, "--title", "red"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        try await laptop.invokeOK(["remote", "add", "usb", "file://\(remote)"])
        try await laptop.invokeOK(["push"])
        // The remote loses the bytes (a half-synced folder, a purge): only the record arrives.
        let remoteObject = "\(remote)/objects/\(sha.prefix(2))/\(sha)"
        let saved = try Data(contentsOf: URL(fileURLWithPath: remoteObject))
        try FileManager.default.removeItem(atPath: remoteObject)

        let phone = CLIStore(directory: laptop.directory, path: "\(laptop.directory)/phone")
        try await phone.invokeOK(["init", "--name", "phone"])
        try await phone.invokeOK(["remote", "add", "usb", "file://\(remote)"])
        let pull = await phone.invoke(["pull"])
        #expect(pull.exitCode == 0, "\(pull)")
        #expect(try phone.show(image)["title"] as? String == "red")
        let fsck = await phone.invoke(["fsck"])
        #expect(
            fsck.exitCode == 0 && fsck.stdout.contains("1 picture from other devices not yet downloaded"), "\(fsck)")
        #expect(try CLIJSON.object(await phone.invoke(["status", "--json"]))["imagesNotDownloaded"] as? Int == 1)
        // Recorded as missing, so later pulls try it again without scanning every image record.
        let missing = "\(phone.path)/sync/missing-images.json"
        #expect(try String(contentsOfFile: missing, encoding: .utf8).contains(sha))
        let schema = SchemaValidator.validate("missing-images", files: [missing], canonical: true)
        #expect(schema.passed, "\(schema)")

        // The bytes come back to the remote: the next pull fetches them, and nothing is missing.
        try saved.write(to: URL(fileURLWithPath: remoteObject))
        try await phone.invokeOK(["pull"])
        #expect(FileManager.default.contents(atPath: phone.objectPath(sha)) == CLIFixtures.png.bytes)
        #expect(try CLIJSON.object(await phone.invoke(["status", "--json"]))["imagesNotDownloaded"] as? Int == 0)
        #expect(try !String(contentsOfFile: missing, encoding: .utf8).contains(sha))
        let clean = await phone.invoke(["fsck"])
        #expect(clean.exitCode == 0 && !clean.stdout.contains("not yet downloaded"), "\(clean)")

        // Bytes missing for a picture this device added are still damage.
        try FileManager.default.removeItem(atPath: laptop.objectPath(sha))
        let damaged = await laptop.invoke(["fsck"])
        #expect(damaged.exitCode == 65 && damaged.stdout.contains("image bytes \(sha) are missing"), "\(damaged)")
    }

    /// A killed upload on a server that writes in place (rclone) leaves a short file under
    /// the image's content address; the next push must replace it, not take it as uploaded.
    @Test func aShortObjectLeftOnTheRemoteIsReplacedByTheNextPush() async throws {
        let laptop = try CLIHarness.makeStore(deviceName: "laptop")
        defer { laptop.remove() }
        let remote = "\(laptop.directory)/remote"
        let png = "\(laptop.directory)/red.png"
        try CLIFixtures.png.bytes.write(to: URL(fileURLWithPath: png))
        let sha = try CLIFixtures.sha256(ofFile: png)
        try await laptop.invokeOK(["image", "add", png, "--title", "red"])
        // The half-written object is there before the push that should have sent it whole.
        let remoteObject = "\(remote)/objects/\(sha.prefix(2))/\(sha)"
        try FileManager.default.createDirectory(
            atPath: "\(remote)/objects/\(sha.prefix(2))", withIntermediateDirectories: true)
        try Data(CLIFixtures.png.bytes.prefix(10)).write(to: URL(fileURLWithPath: remoteObject))
        try await laptop.invokeOK(["remote", "add", "usb", "file://\(remote)"])
        try await laptop.invokeOK(["push"])
        #expect(try CLIFixtures.sha256(ofFile: remoteObject) == sha, "the short object was kept")
        let phone = CLIStore(directory: laptop.directory, path: "\(laptop.directory)/phone")
        try await phone.invokeOK(["init", "--name", "phone"])
        try await phone.invokeOK(["remote", "add", "usb", "file://\(remote)"])
        CLIExpect.success(await phone.invoke(["pull"]))
        CLIExpect.success(await phone.invoke(["fsck"]))
    }
}

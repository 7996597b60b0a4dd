import AISyncTestSupport
import Foundation
import Testing

/// `remote add NAME s3://BUCKET[/PREFIX]` with its endpoint, region and addressing: what the
/// config records, and the usage errors (exit 64, store unchanged) for what it refuses.
@Suite("remote add s3://")
struct S3RemoteAddTests {
    /// No AWS key anywhere, whatever the machine running the tests has: the probe at
    /// `remote add` then stops before any request.
    static let noKey = ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_PROFILE": ""]

    /// Added (exit 0), with the one warning that the store could not be checked without a key.
    static func expectAdded(_ r: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            r.exitCode == 0 && r.stdout.isEmpty && r.stderr.contains("is added, but could not be checked now")
                && r.stderr.contains("AWS_ACCESS_KEY_ID") && r.stderr.split(separator: "\n").count == 1,
            "\(r)", sourceLocation: sourceLocation)
    }

    @Test("an S3 remote is recorded with its endpoint, region and addressing, and listed as s3")
    func recorded() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let added = await store.invoke(
            [
                "remote", "add", "cloud", "s3://family-photos/aisync/", "--endpoint", "https://s3.example.com",
                "--region", "eu-central-1", "--path-style",
            ], environment: Self.noKey)
        // Added offline: the check of conditional writes is a warning that says why it did not run.
        Self.expectAdded(added)
        #expect(added.stderr.contains("cloud is added"), "\(added)")
        Self.expectAdded(await store.invoke(["remote", "add", "aws", "s3://my-bucket"], environment: Self.noKey))
        let listed = try CLIJSON.array(await store.invoke(["remote", "list", "--json"]))
        try #require(listed.count == 2)
        #expect(listed[0]["type"] as? String == "s3")
        #expect(listed[0]["url"] as? String == "s3://family-photos/aisync", "the trailing slash is dropped: \(listed)")
        #expect(listed[0]["endpoint"] as? String == "https://s3.example.com")
        #expect(listed[0]["region"] as? String == "eu-central-1")
        #expect(listed[1]["url"] as? String == "s3://my-bucket" && listed[1]["endpoint"] == nil)
        let config = try String(contentsOfFile: store.configPath, encoding: .utf8)
        #expect(config.contains(#""addressing":"path""#), "\(config)")
        try SchemaValidator.requireAvailable()
        let check = SchemaValidator.validate("config", files: [store.configPath], canonical: true)
        #expect(check.passed, "\(check)")
        let plain = await store.invoke(["remote", "list"])
        #expect(plain.stdout.contains("cloud\ts3\ts3://family-photos/aisync"), "\(plain)")
    }

    @Test(arguments: [
        (["s3://Bad_Bucket!"], "not a bucket name"),
        (["s3://bucket/aisync", "--endpoint", "ftp://s3.example.com"], "not an http(s) URL"),
        (["s3://bucket/aisync", "--endpoint", "https://s3.example.com/bucket"], "scheme and host only"),
        (["s3://bucket/aisync", "--endpoint", "http://s3.example.com"], "refusing plain http://"),
        (["s3://bucket/aisync", "--path-style", "--virtual-hosted"], "cannot both be given"),
        (["https://dav.example.com/aisync", "--endpoint", "https://s3.example.com"], "s3:// remotes only"),
        (["s3://bucket/aisync", "--plain"], "plain HTTP applies"),
    ])
    func refused(arguments: [String], message: String) async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let before = try String(contentsOfFile: store.configPath, encoding: .utf8)
        let r = await store.invoke(["remote", "add", "cloud"] + arguments, environment: Self.noKey)
        CLIExpect.cleanError(r, code: 64, mentioning: [message])
        #expect(try String(contentsOfFile: store.configPath, encoding: .utf8) == before)
    }

    @Test("a plain http:// endpoint to this machine needs no --insecure; to another host it does")
    func insecureEndpoint() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        Self.expectAdded(
            await store.invoke(
                ["remote", "add", "local", "s3://bucket/a", "--endpoint", "http://127.0.0.1:8333"],
                environment: Self.noKey))
        Self.expectAdded(
            await store.invoke(
                ["remote", "add", "lan", "s3://bucket/a", "--endpoint", "http://nas.lan:9000", "--insecure"],
                environment: Self.noKey))
    }

    @Test("syncing with no AWS key anywhere is one line naming where keys are looked for (exit 77)")
    func noKey() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        Self.expectAdded(
            await store.invoke(
                ["remote", "add", "cloud", "s3://bucket/a", "--endpoint", "http://127.0.0.1:1"],
                environment: Self.noKey))
        let r = await store.invoke(["push"], environment: Self.noKey)
        CLIExpect.cleanError(r, code: 77, mentioning: ["AWS_ACCESS_KEY_ID", "~/.aws/credentials"])
    }
}

import AISyncTestSupport
import Foundation
import Testing

/// HTTPS as people run it (issue 31): Apache with mod_ssl and nginx with `ssl`, started by
/// `scripts/servers.sh` with a certificate from a CA made for this run, which no system
/// trusts. A user trusts it with `--ca-cert` (or `remote trust`), may pin the server's key,
/// syncs a 200 MB picture over it and can stop a push half-way. Every verdict is checked
/// against curl on the same server: nothing passes because verification was skipped.
@Suite("HTTPS servers", .tags(.servers), .needsServers)
struct HTTPSServerTests {
    /// What curl makes of `url` (HEAD, with the test credentials): its HTTP status, or nil
    /// when it refused the connection; trusting `ca` (a PEM file) or only the system's.
    static func curlStatus(_ url: String, server: TestServer, ca: String?) -> Int? {
        let config = "user = \"\(server.user):\(server.password)\"\n"
        let r = CLIHarness.runProcess(
            "/usr/bin/curl",
            ["-sS", "-I", "-o", "/dev/null", "-w", "%{http_code}", "-K", "-", "--max-time", "10"]
                + (ca.map { ["--cacert", $0] } ?? ["--cacert", "/etc/ssl/certs/ca-certificates.crt"]) + [url + "/"],
            stdin: Data(config.utf8))
        guard r.exitCode == 0 else { return nil }
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The server's key pin (`sha256//BASE64`), read from the live server by openssl.
    static func livePin(_ server: TestServer) throws -> String {
        let authority = try #require(URL(string: server.baseURL)).port.map { "127.0.0.1:\($0)" } ?? ""
        let r = CLIHarness.runProcess(
            "/bin/sh",
            [
                "-c",
                "openssl s_client -connect \(authority) </dev/null 2>/dev/null | openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
            ])
        try #require(r.exitCode == 0 && r.stdout.count > 40, "\(r)")
        return "sha256//" + r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "without its CA the server is refused (as curl refuses it); trusted with `remote trust`, it syncs, and what was synced is kept",
        arguments: RemoteKind.https)
    func trustAfterTheFact(_ kind: RemoteKind) async throws {
        let server = try TestServer.require(kind)
        let ca = try #require(server.certificateAuthority)
        let remote = try await server.freshRemote("trust")
        // Blocking waits off the cooperative pool (on Linux it is Dispatch's few global threads,
        // which URLSession's deliveries elsewhere in the process need): ProcessGate.
        let base = remote.server.baseURL
        let refused = await ProcessGate.run { Self.curlStatus(base, server: server, ca: nil) }
        let reached = await ProcessGate.run { Self.curlStatus(base, server: server, ca: ca) }
        #expect(refused == nil, "curl refuses it too")
        #expect(reached != nil, "curl with the CA reaches it")
        var untrusted = remote
        untrusted.server.certificateAuthority = nil
        let a = try await Device.make("laptop", remote: untrusted)
        defer { a.remove() }
        let chat = try await a.ok(["chat", "new", "--title", "Private server"])
        let before = a.fingerprint()
        for verb in ["push", "pull", "sync"] {
            let r = await a.run([verb])
            CLIExpect.cleanError(
                r, code: 78, mentioning: ["is not trusted", "unable to get local issuer certificate", "remote trust"])
        }
        #expect(a.fingerprint() == before, "a refused server changes nothing")
        #expect(!(try await remote.fileExists("aisync.json")), "nothing reached the server")

        let trusted = try await a.ok(["remote", "trust", "origin", "--ca-cert", ca])
        #expect(trusted.contains("origin trusts 1 certificate beside the system's certificates"), "\(trusted)")
        let pushed = try await a.sync("push")
        #expect(pushed["pushed"] as? Int ?? 0 >= 1, "\(pushed)")
        // Back to the system's trust alone: a new chat cannot go; trusted again, it alone goes
        // (the checkpoint was kept through both changes).
        try await a.ok(["remote", "trust", "origin"])
        try await a.ok(["chat", "new", "--title", "Second"])
        CLIExpect.cleanError(await a.run(["push"]), code: 78, mentioning: ["is not trusted"])
        try await a.ok(["remote", "trust", "origin", "--ca-cert", ca])
        let again = try await a.sync("push")
        #expect(again["pushed"] as? Int == 1, "\(again)")

        let b = try await Device.make("phone", remote: remote)
        defer { b.remove() }
        try await b.sync("pull")
        #expect(try await Scenario.show(b, chat)["title"] as? String == "Private server")
        await remote.remove()
    }

    @Test("a pinned key: the server's own syncs; another is refused before anything moves", arguments: RemoteKind.https)
    func pinnedKey(_ kind: RemoteKind) async throws {
        let server = try TestServer.require(kind)
        let remote = try await server.freshRemote("pin")
        let pin = try await ProcessGate.run { Result { try Self.livePin(server) } }.get()
        let a = try await Device.make("laptop", remote: remote)
        defer { a.remove() }
        try await a.ok(["chat", "new", "--title", "Pinned"])
        let ca = try #require(server.certificateAuthority)
        try await a.ok(["remote", "trust", "origin", "--ca-cert", ca, "--pin-sha256", pin])
        try await a.sync("push")
        let listed = try CLIJSON.array(await a.run(["remote", "list", "--json"]))
        #expect((listed.first?["trust"] as? [String: Any])?["pins"] as? [String] == [pin], "\(listed)")

        let wrong = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        try await a.ok(["remote", "trust", "origin", "--ca-cert", ca, "--pin-sha256", wrong])
        try await a.ok(["chat", "new", "--title", "Not sent"])
        let before = a.fingerprint()
        let r = await a.run(["push"])
        CLIExpect.cleanError(r, code: 78, mentioning: ["is not the one pinned", pin, "Do not sync until you know why"])
        #expect(a.fingerprint() == before)
        // Nothing was sent under the wrong pin: with the right one, the new chat goes now.
        try await a.ok(["remote", "trust", "origin", "--ca-cert", ca, "--pin-sha256", pin])
        let pushed = try await a.sync("push")
        #expect(pushed["pushed"] as? Int == 1, "\(pushed)")
        await remote.remove()
    }

    @Test(
        "S3 over HTTPS: a bucket behind a TLS endpoint with a private CA (moto behind a proxy that speaks TLS), signed and synced; refused without the CA"
    )
    func s3OverHTTPS() async throws {
        let moto = try TestServer.require(.moto)
        let proxy = try FaultProxy.start(upstream: moto, seed: 1, rate: 0, secure: true)
        defer { proxy.stop() }
        let direct = try await moto.freshRemote("tls")
        var through = moto
        through.baseURL = "https://127.0.0.1:\(proxy.port)"
        through.certificateAuthority = "\(try TLSFixtures.folder())/ca.pem"
        let remote = TestRemote(server: through, url: direct.url, folderPath: nil)
        let a = try await Device.make("laptop", remote: remote)
        let b = try await Device.make("phone", remote: remote)
        defer {
            a.remove()
            b.remove()
        }
        let chat = try await a.ok(["chat", "new", "--title", "In a bucket, over TLS"])
        try await a.sync("push")
        try await b.sync("pull")
        #expect(try await Scenario.show(b, chat)["title"] as? String == "In a bucket, over TLS")
        #expect(
            proxy.log().contains { $0["method"] as? String == "PUT" && $0["status"] as? Int == 200 },
            "the objects went through the TLS endpoint")
        var untrusted = remote
        untrusted.server.certificateAuthority = nil
        let c = try await Device.make("tablet", remote: untrusted)
        defer { c.remove() }
        CLIExpect.cleanError(await c.run(["pull"]), code: 78, mentioning: ["is not trusted"])
        await direct.remove()
    }

    @Test("a 200 MB picture over HTTPS: pushed, pulled byte for byte; a push stopped half-way completes next time")
    func largePictureAndCancel() async throws {
        let server = try TestServer.require(.apacheTLS)
        let remote = try await server.freshRemote("big")
        let a = try await Device.make("laptop", remote: remote)
        let b = try await Device.make("phone", remote: remote)
        defer {
            a.remove()
            b.remove()
        }
        let directory = a.store.directory
        let png = try await ProcessGate.run { Result { try LargePicture.make(in: directory, megabytes: 200) } }.get()
        let image = try await a.ok(["image", "add", png, "--prompt", "a very large fox"])
        // Stopped once 20 MB of the picture went out (the process's written bytes, sockets
        // included): exit 130, and the next push sends it whole.
        let (store, environment) = (a.store.path, a.environment)
        let (sending, stopped) = try await ProcessGate.run {
            Result { () throws -> (Bool, CLIResult) in
                let push = try CLIHarness.startAISync(["push"], store: store, environment: environment)
                let sending = LargePicture.waitUntil(push.pid, hasWritten: 20 << 20)
                kill(push.pid, SIGINT)
                return (sending, push.wait(timeout: 30))
            }
        }.get()
        try #require(sending, "the push never sent 20 MB: \(stopped)")
        CLIExpect.cleanError(stopped, code: 130, mentioning: ["cancelled"])
        let pushed = try await a.sync("push")
        #expect(pushed["blobs"] as? Int == 1, "\(pushed)")
        let pulled = try await b.sync("pull")
        #expect(pulled["blobs"] as? Int == 1, "\(pulled)")
        try await Scenario.expectImageBytes(
            on: b, [image: try Data(contentsOf: URL(fileURLWithPath: png))], "the 200 MB picture over HTTPS")
        try await b.ok(["fsck"])
        await remote.remove()
    }
}

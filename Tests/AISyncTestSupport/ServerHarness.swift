import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Support for the real-server scenario suite (ServerScenarioTests): every kind of remote, a
/// fresh remote location per test, and "devices" (stores) that run the built `aisync` against
/// it.
///
/// The servers are started by `scripts/servers.sh` (called by `scripts/test.sh`), which exports
/// AISYNC_TEST_{APACHE,RCLONE,NGINX,WSGIDAV,LIGHTTPD}_URL, AISYNC_TEST_USER and
/// AISYNC_TEST_PASSWORD (and the S3 stores' variables). A missing variable fails the test: these
/// tests are never skipped.

package enum RemoteKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case folder, apache, rclone, nginx, wsgidav, lighttpd, seaweedfs, moto
    /// The apache and nginx servers over HTTPS (mod_ssl, nginx `ssl`), with the run's
    /// certificate, trusted with `remote add --ca-cert` (issue 31). Not in ``allCases``: the
    /// suites that run over HTTPS name them (``https``).
    case apacheTLS = "apache-https"
    case nginxTLS = "nginx-https"

    /// Every kind over plain connections (the HTTPS kinds are ``https``).
    package static let allCases: [RemoteKind] = [
        .folder, .apache, .rclone, .nginx, .wsgidav, .lighttpd, .seaweedfs, .moto,
    ]
    /// The servers over HTTPS, with the run's private CA.
    package static let https: [RemoteKind] = [.apacheTLS, .nginxTLS]

    /// The HTTP servers (WebDAV and plain HTTP), which take Basic auth.
    package static let servers: [RemoteKind] = [.apache, .rclone, .nginx, .wsgidav, .lighttpd]
    /// The WebDAV servers: Apache mod_dav, rclone, WsgiDAV and lighttpd's mod_webdav.
    package static let webdav: [RemoteKind] = [.apache, .rclone, .wsgidav, .lighttpd]
    /// S3-compatible stores: a SeaweedFS cluster and moto's server.
    package static let s3: [RemoteKind] = [.seaweedfs, .moto]

    package var testDescription: String { rawValue }
    package var isServer: Bool { self != .folder }
    /// nginx is the plain HTTP remote (`remote add --plain`): no PROPFIND.
    package var isPlain: Bool { self == .nginx || self == .nginxTLS }
    /// Over HTTPS with the run's CA (`remote add --ca-cert`).
    package var isTLS: Bool { Self.https.contains(self) }
    /// The same server over plain HTTP (its data, its root), for an HTTPS kind.
    package var plain: RemoteKind {
        switch self {
        case .apacheTLS: .apache
        case .nginxTLS: .nginx
        default: self
        }
    }
    /// An S3 bucket (`s3://BUCKET/PREFIX --endpoint URL`), signed with an AWS key.
    package var isS3: Bool { self == .seaweedfs || self == .moto }
    /// A WebDAV server (PROPFIND lists, MKCOL makes collections).
    package var isWebDAV: Bool { Self.webdav.contains(plain) }

    /// The prefix of the variables servers.sh exports for an S3 store.
    var s3Variables: String? {
        switch self {
        case .seaweedfs: "AISYNC_TEST_SEAWEED"
        case .moto: "AISYNC_TEST_MOTO"
        default: nil
        }
    }

    package var urlVariable: String? {
        switch self {
        case .folder: nil
        case .apache: "AISYNC_TEST_APACHE_URL"
        case .rclone: "AISYNC_TEST_RCLONE_URL"
        case .nginx: "AISYNC_TEST_NGINX_URL"
        case .wsgidav: "AISYNC_TEST_WSGIDAV_URL"
        case .lighttpd: "AISYNC_TEST_LIGHTTPD_URL"
        case .seaweedfs: "AISYNC_TEST_SEAWEED_S3_URL"
        case .moto: "AISYNC_TEST_MOTO_S3_URL"
        case .apacheTLS: "AISYNC_TEST_APACHE_HTTPS_URL"
        case .nginxTLS: "AISYNC_TEST_NGINX_HTTPS_URL"
        }
    }
}

/// Where a kind of remote lives: a server's base URL and credentials, or the folder root.
package struct TestServer: Sendable {
    package var kind: RemoteKind
    /// `http://127.0.0.1:PORT/dav`, or `file:///tmp/...` for folders.
    package var baseURL: String
    package var user: String
    package var password: String
    /// S3 stores: the bucket the tests use, and its region.
    package var bucket = ""
    package var region = ""
    /// For an HTTPS kind: the same server's plain `http://` base URL, which the tests' own
    /// requests (set-up and checks, not aisync's) use.
    package var plainBaseURL: String?
    /// For an HTTPS kind: the run's CA certificate (PEM), which `remote add --ca-cert` gets.
    package var certificateAuthority: String?

    /// `url` as the tests' own requests reach it: over plain HTTP for an HTTPS kind.
    package func helperURL(_ url: String) -> String {
        guard let plainBaseURL, url.hasPrefix(baseURL) else { return url }
        return plainBaseURL + url.dropFirst(baseURL.count)
    }

    /// A direct client for an S3 store (checks and set-up without aisync).
    package var s3Client: S3TestClient {
        S3TestClient(endpoint: baseURL, bucket: bucket, region: region, accessKey: user, secretKey: password)
    }

    /// Where folder remotes live: one directory per test process, removed at exit.
    package static let folderRoot: String = {
        let path = "\(NSTemporaryDirectory())/aisync-folder-remotes-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { TestServer.removeFolderRoot() }
        return (path as NSString).standardizingPath
    }()

    package static func removeFolderRoot() { try? FileManager.default.removeItem(atPath: folderRoot) }

    /// The server for `kind`, from the environment; fails the test when it is not set. An S3
    /// store's variables begin with `variables` when given (a second SeaweedFS cluster).
    package static func require(
        _ kind: RemoteKind, variables: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> TestServer {
        guard let variable = kind.urlVariable else {
            return TestServer(kind: .folder, baseURL: "file://\(folderRoot)", user: "", password: "")
        }
        let env = ProcessInfo.processInfo.environment
        if let prefix = variables ?? kind.s3Variables {
            func value(_ suffix: String) throws -> String {
                try #require(
                    env[prefix + suffix].flatMap { $0.isEmpty ? nil : $0 },
                    "\(prefix + suffix) is not set: run scripts/test.sh, which starts SeaweedFS and moto (or `scripts/servers.sh start` and `set -a; . /tmp/aisync-servers/env; set +a`)",
                    sourceLocation: sourceLocation)
            }
            var server = TestServer(
                kind: kind, baseURL: try value("_S3_URL"), user: try value("_ACCESS_KEY"),
                password: try value("_SECRET_KEY"))
            server.bucket = try value("_BUCKET")
            server.region = try value("_REGION")
            return server
        }
        let hint =
            "run scripts/test.sh, which starts Apache, rclone, nginx, WsgiDAV and lighttpd on loopback ports and exports the variables (or run `scripts/servers.sh start` and `set -a; . /tmp/aisync-servers/env; set +a` before `swift test`)"
        let url = try #require(
            env[variable].flatMap { $0.isEmpty ? nil : $0 }, "\(variable) is not set: \(hint)",
            sourceLocation: sourceLocation)
        let user = try #require(
            env["AISYNC_TEST_USER"], "AISYNC_TEST_USER is not set: \(hint)", sourceLocation: sourceLocation)
        let password = try #require(
            env["AISYNC_TEST_PASSWORD"], "AISYNC_TEST_PASSWORD is not set: \(hint)", sourceLocation: sourceLocation)
        var server = TestServer(
            kind: kind, baseURL: url.hasSuffix("/") ? String(url.dropLast()) : url, user: user, password: password)
        if kind.isTLS {
            server.plainBaseURL = try require(kind.plain, sourceLocation: sourceLocation).baseURL
            let authority: String = try #require(
                env["AISYNC_TEST_TLS_CA"], "AISYNC_TEST_TLS_CA is not set: \(hint)", sourceLocation: sourceLocation)
            server.certificateAuthority = authority
        }
        return server
    }

    /// The environment a device needs to reach this server.
    package var credentials: [String: String] {
        if kind.isS3 {
            return ["AWS_ACCESS_KEY_ID": user, "AWS_SECRET_ACCESS_KEY": password, "AWS_REGION": region]
        }
        return kind.isServer ? ["AISYNC_USER": user, "AISYNC_PASSWORD": password] : [:]
    }

    /// A new, empty remote location of its own: a fresh folder, or a fresh collection made
    /// with MKCOL (aisync never creates a missing root; for nginx the first PUT creates it).
    package func freshRemote(_ label: String = "t", sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> TestRemote
    {
        let name = "\(label)-\(UUID().uuidString.lowercased().prefix(13))"
        switch kind {
        case .folder:
            let path = "\(Self.folderRoot)/\(name)"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return TestRemote(server: self, url: "file://\(path)", folderPath: path)
        case .apache, .rclone, .wsgidav, .lighttpd, .apacheTLS:
            let url = "\(baseURL)/\(name)"
            let r = try await RemoteHTTP.send("MKCOL", url + "/", server: self)
            try #require(
                r.status == 201, "MKCOL \(url)/ answered \(r.status): \(r.text)", sourceLocation: sourceLocation)
            return TestRemote(server: self, url: url, folderPath: nil)
        case .nginx, .nginxTLS:
            return TestRemote(server: self, url: "\(baseURL)/\(name)", folderPath: nil)
        case .seaweedfs, .moto:
            // Nothing to make: a bucket's folders are key prefixes.
            return TestRemote(server: self, url: "s3://\(bucket)/\(name)", folderPath: nil)
        }
    }

    /// A URL on the same server where nothing listens (server down), or a folder that does
    /// not exist.
    package func unreachableURL() throws -> String {
        switch kind {
        case .folder:
            return "file://\(Self.folderRoot)/missing-\(UUID().uuidString.lowercased())"
        default:
            return "http://127.0.0.1:\(try Self.closedPort())/dav/aisync"
        }
    }

    /// A remote on this kind of server where nothing listens (an S3 endpoint on a closed port).
    package func unreachableRemote() throws -> TestRemote {
        guard kind.isS3 else { return TestRemote(server: self, url: try unreachableURL(), folderPath: nil) }
        var down = self
        down.baseURL = "http://127.0.0.1:\(try Self.closedPort())"
        return TestRemote(server: down, url: "s3://\(bucket)/aisync", folderPath: nil)
    }

    /// A loopback port nobody listens on: bound to find a free one, then closed.
    package static func closedPort() throws -> Int {
        #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue)
        #else
            let stream = SOCK_STREAM
        #endif
        let fd = socket(AF_INET, stream, 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, len) == 0 && getsockname(fd, sa, &len) == 0
            }
        }
        guard ok else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}

/// One remote location used by one test.
package struct TestRemote: Sendable {
    package var server: TestServer
    /// What `aisync remote add` gets.
    package var url: String
    package var folderPath: String?

    package init(server: TestServer, url: String, folderPath: String?) {
        self.server = server
        self.url = url
        self.folderPath = folderPath
    }

    package var kind: RemoteKind { server.kind }

    /// `remote add` arguments for this remote (with `--plain` for nginx unless told otherwise).
    package func addArguments(name: String = "origin", plain: Bool? = nil) -> [String] {
        let trust = server.certificateAuthority.map { ["--ca-cert", $0] } ?? []
        if kind.isS3 { return ["remote", "add", name, url, "--endpoint", server.baseURL] + trust }
        return ["remote", "add", name, url] + ((plain ?? kind.isPlain) ? ["--plain"] : []) + trust
    }

    /// The key prefix of an S3 remote (`t-1234…`).
    package var s3Prefix: String { String(url.dropFirst("s3://\(server.bucket)/".count)) }

    /// Where the server keeps this remote's files on disk (servers.sh exports each server's
    /// root as AISYNC_TEST_<KIND>_ROOT), to read them raw, as the server's admin could.
    package func rawFolder() async throws -> String {
        if let folderPath { return folderPath }
        if kind.isS3 {
            // A copy of every object, in the remote's layout.
            let folder = CLIHarness.makeTemporaryDirectory() + "/raw"
            try await server.s3Client.mirror(prefix: s3Prefix, into: folder)
            return folder
        }
        let variable = "AISYNC_TEST_\(kind.plain.rawValue.uppercased())_ROOT"
        let root = try #require(
            ProcessInfo.processInfo.environment[variable], "\(variable) is not set: run scripts/servers.sh start")
        let path = try #require(URL(string: url)?.path, "bad URL \(url)")
        return root + path
    }

    /// Whether a file exists on the remote (checked without aisync).
    package func fileExists(_ path: String) async throws -> Bool {
        if let folderPath { return FileManager.default.fileExists(atPath: "\(folderPath)/\(path)") }
        if kind.isS3 { return try await server.s3Client.send("HEAD", "\(s3Prefix)/\(path)").status == 200 }
        let r = try await RemoteHTTP.send("HEAD", "\(url)/\(path)", server: server)
        return r.status == 200
    }

    /// The ETag the server gives a file now (HEAD), or nil (folders, no ETag, missing).
    package func etag(_ path: String) async throws -> String? {
        guard folderPath == nil else { return nil }
        let r =
            kind.isS3
            ? try await server.s3Client.send("HEAD", "\(s3Prefix)/\(path)")
            : try await RemoteHTTP.send("HEAD", "\(url)/\(path)", server: server)
        return r.status == 200 ? r.headers["etag"] : nil
    }

    /// Best-effort removal of everything the test wrote.
    package func remove() async {
        if let folderPath {
            CLIHarness.removeTree(folderPath)
            return
        }
        if kind.isS3 {
            try? await server.s3Client.removeAll(under: s3Prefix)
            return
        }
        _ = try? await RemoteHTTP.send("DELETE", url + "/", server: server)
    }
}

/// Direct HTTP for test set-up and checks (not through aisync).
package enum RemoteHTTP {
    package struct Response: Sendable {
        package var status: Int
        package var body: Data
        /// Header names in lowercase.
        package var headers: [String: String] = [:]
        package var text: String { String(decoding: body.prefix(2000), as: UTF8.self) }
    }

    package static let session: URLSession = {
        let c = URLSessionConfiguration.ephemeral
        c.timeoutIntervalForRequest = 30
        c.urlCache = nil
        return URLSession(configuration: c)
    }()

    package static func send(
        _ method: String, _ url: String, server: TestServer, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> Response {
        var request = URLRequest(url: try #require(URL(string: server.helperURL(url)), "bad URL \(url)"))
        request.httpMethod = method
        let token = Data("\(server.user):\(server.password)".utf8).base64EncodedString()
        request.setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let (data, response): (Data, URLResponse)
        if let body {
            (data, response) = try await session.upload(for: request, from: body)
        } else {
            (data, response) = try await session.data(for: request)
        }
        var headers: [String: String] = [:]
        for (k, v) in (response as? HTTPURLResponse)?.allHeaderFields ?? [:] {
            if let k = k as? String, let v = v as? String { headers[k.lowercased()] = v }
        }
        return Response(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data, headers: headers)
    }
}

/// Bounds how many `aisync` processes the suite runs at once, and runs them off the
/// cooperative thread pool (the harness blocks while a child runs), so many tests can be in
/// flight on a 2-core machine without starving each other.
package actor ProcessGate {
    package static let shared = ProcessGate(limit: max(4, ProcessInfo.processInfo.activeProcessorCount * 3))

    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package init(limit: Int) { available = limit }

    package func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    package func release() {
        if waiters.isEmpty { available += 1 } else { waiters.removeFirst().resume() }
    }

    /// Runs `body`, which blocks (it waits for a child process), on a thread of its own. Not
    /// on Dispatch's global queue: on Linux its threads are as many as the cores, so two
    /// tests waiting for children there would stall every other user of it in the process
    /// (URLSession's deliveries, timers) for as long as the children run.
    package static func blocking(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Runs blocking `body` on a thread of its own once a slot is free.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await shared.acquire()
        let result = await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            ProcessGate.blocking { c.resume(returning: body()) }
        }
        await shared.release()
        return result
    }
}

/// A machine with its own store, syncing with one remote as `origin`.
package struct Device: Sendable {
    package var label: String
    package var store: CLIStore
    package var environment: [String: String]

    package init(label: String, store: CLIStore, environment: [String: String]) {
        self.label = label
        self.store = store
        self.environment = environment
    }

    /// A new store (`init --name LABEL`) with `remote` added as `origin`.
    package static func make(
        _ label: String, remote: TestRemote, plain: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Device {
        let dir = CLIHarness.makeTemporaryDirectory()
        let device = Device(
            label: label, store: CLIStore(directory: dir, path: "\(dir)/store"), environment: remote.server.credentials)
        try await device.ok(["init", "--name", label], sourceLocation: sourceLocation)
        try await device.ok(remote.addArguments(plain: plain), sourceLocation: sourceLocation)
        return device
    }

    package func remove() { store.remove() }

    package func run(_ arguments: [String], stdin: Data? = nil, environment extra: [String: String] = [:]) async
        -> CLIResult
    {
        var env = environment
        for (k, v) in extra { env[k] = v }
        let path = store.path
        let e = env
        return await ProcessGate.run { CLIHarness.run(arguments, store: path, stdin: stdin, environment: e) }
    }

    /// Runs at once, bypassing the process gate (for steps that must follow each other closely).
    package func runNow(_ arguments: [String]) async -> CLIResult {
        let path = store.path
        let env = environment
        return await withCheckedContinuation { (c: CheckedContinuation<CLIResult, Never>) in
            ProcessGate.blocking {
                c.resume(returning: CLIHarness.run(arguments, store: path, environment: env))
            }
        }
    }

    /// Runs a command that must succeed; returns stdout without its final newline.
    @discardableResult
    package func ok(
        _ arguments: [String], stdin: Data? = nil, _ context: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let r = await run(arguments, stdin: stdin)
        try #require(
            r.succeeded, "[\(label)] expected success\(context.isEmpty ? "" : " (\(context))"): \(r)",
            sourceLocation: sourceLocation)
        return r.trimmedStdout
    }

    /// Adds `count` generated chats with `aisync-bench generate`.
    package func generate(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let path = store.path
        let r = await withCheckedContinuation { (c: CheckedContinuation<CLIResult, Never>) in
            ProcessGate.blocking { c.resume(returning: CLIHarness.generate(count, store: path)) }
        }
        try #require(r.succeeded, "[\(label)] expected success: \(r)", sourceLocation: sourceLocation)
    }

    /// `push`, `pull` or `sync` with `--json`; must succeed without warnings on stderr.
    @discardableResult
    package func sync(
        _ verb: String = "sync", _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws -> [String: Any]
    {
        let r = await run([verb, "--json"])
        try #require(
            r.succeeded, "[\(label)] \(verb) failed\(context.isEmpty ? "" : " (\(context))"): \(r)",
            sourceLocation: sourceLocation)
        #expect(r.stderrData.isEmpty, "[\(label)] \(verb) wrote to stderr: \(r)", sourceLocation: sourceLocation)
        return try CLIJSON.object(r, sourceLocation: sourceLocation)
    }

    /// Starts `aisync ARGUMENTS` in the background (not gated: for races and kills).
    package func start(_ arguments: [String]) throws -> CLIBackgroundProcess {
        var env = CLIHarness.baseEnvironment()
        for (k, v) in environment { env[k] = v }
        return try CLIHarness.start(
            CLIHarness.executable, arguments + ["--store", store.path], environment: env, stdin: nil,
            display: ["aisync", "[\(label)]"] + arguments)
    }

    package func list(deleted: Bool = true) async throws -> [[String: Any]] {
        let r = await run(["list", "--json"] + (deleted ? ["--deleted"] : []))
        try #require(r.succeeded, "[\(label)] list failed: \(r)")
        return try CLIJSON.array(r)
    }

    package func ids(kind: String? = nil, live: Bool = true) async throws -> [String] {
        try await list(deleted: !live).filter { kind == nil || $0["kind"] as? String == kind }.compactMap {
            $0["id"] as? String
        }
    }

    package func conflicts() async throws -> [[String: Any]] {
        let r = await run(["conflicts", "--json"])
        try #require(r.succeeded, "[\(label)] conflicts failed: \(r)")
        return try CLIJSON.array(r)
    }

    /// What must not change when a sync fails: journal, config and checkpoints.
    package func fingerprint() -> [String: Data] {
        var files: [String: Data] = [:]
        for name in ["journal.jsonl", "config.json"] {
            files[name] = FileManager.default.contents(atPath: "\(store.path)/\(name)") ?? Data()
        }
        let sync = "\(store.path)/sync"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: sync)) ?? [] where name.hasSuffix(".json") {
            files["sync/\(name)"] = FileManager.default.contents(atPath: "\(sync)/\(name)") ?? Data()
        }
        return files
    }
}

/// Comparing devices: the same records, bodies, conflicts and image bytes everywhere.
package enum Converge {
    /// `list --json --deleted`, every `show --json`, `conflicts --json` and every image's
    /// bytes are identical on all devices. Returns the ids compared.
    @discardableResult
    package static func expectIdentical(
        _ devices: [Device], _ context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String] {
        let first = devices[0]
        let list = await first.run(["list", "--json", "--deleted"])
        try #require(list.succeeded, "[\(first.label)] list failed: \(list)", sourceLocation: sourceLocation)
        let records = try CLIJSON.array(list, sourceLocation: sourceLocation)
        let conflicts = await first.run(["conflicts", "--json"])
        for other in devices.dropFirst() {
            let l = await other.run(["list", "--json", "--deleted"])
            #expect(
                l.succeeded && l.stdout == list.stdout,
                "\(context): `list --json --deleted` differs between \(first.label) and \(other.label):\n\(first.label): \(list.stdout.prefix(3000))\n\(other.label): \(l.stdout.prefix(3000))",
                sourceLocation: sourceLocation)
            let c = await other.run(["conflicts", "--json"])
            #expect(
                c.succeeded && c.stdout == conflicts.stdout,
                "\(context): `conflicts --json` differs between \(first.label) and \(other.label):\n\(conflicts.stdout.prefix(3000))\n\(c.stdout.prefix(3000))",
                sourceLocation: sourceLocation)
        }
        var ids: [String] = []
        for record in records {
            guard let id = record["id"] as? String else { continue }
            ids.append(id)
            let show = await first.run(["show", id, "--json"])
            for other in devices.dropFirst() {
                let s = await other.run(["show", id, "--json"])
                #expect(
                    s.exitCode == show.exitCode && s.stdout == show.stdout,
                    "\(context): `show \(id) --json` differs between \(first.label) and \(other.label):\n\(show)\n\(s)",
                    sourceLocation: sourceLocation)
            }
            if record["kind"] as? String == "image", record["deleted"] as? Bool == false {
                var saved: [Data] = []
                for d in devices {
                    let target = "\(d.store.directory)/saved-\(id)"
                    let r = await d.run(["image", "save", id, target])
                    #expect(
                        r.succeeded, "\(context): [\(d.label)] image save \(id) failed: \(r)",
                        sourceLocation: sourceLocation)
                    saved.append(FileManager.default.contents(atPath: target) ?? Data())
                    try? FileManager.default.removeItem(atPath: target)
                }
                #expect(
                    saved.allSatisfy { $0 == saved[0] && !$0.isEmpty },
                    "\(context): the bytes of image \(id) differ between devices", sourceLocation: sourceLocation)
            }
        }
        return ids
    }
}

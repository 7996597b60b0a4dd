import Foundation
import Synchronization
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

/// The Imgur stand-in (scripts/imgur_standin.py) as a child process on a free port.
package final class ImgurStandIn {
    package static let clientID = "aisyncE2EClient"
    package static let token = "aisyncE2EToken"

    package let process: Process
    package let directory: String
    package let url: String
    package var clientEnv: [String: String] { ["AISYNC_IMGUR_CLIENT_ID": Self.clientID] }

    private init(process: Process, directory: String, url: String) {
        self.process = process
        self.directory = directory
        self.url = url
    }

    /// Starts the stand-in; with `tls`, it serves HTTPS with the test certificates
    /// (``TLSFixtures``), as api.imgur.com is reached over HTTPS.
    package static func start(
        _ extra: [String] = [], tls: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ImgurStandIn {
        let dir = CLIHarness.makeTemporaryDirectory()
        let urlFile = "\(dir)/url"
        let log = "\(dir)/standin.log"
        try FileManager.default.createDirectory(atPath: "\(dir)/data", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", "\(CLIHarness.packageRoot)/scripts/imgur_standin.py", "--port", "0", "--url-file", urlFile,
                "--data-dir", "\(dir)/data", "--client-id", clientID, "--token", token,
            ] + extra
        let output = FileHandle(forWritingAtPath: log)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        if tls {
            var environment = ProcessInfo.processInfo.environment
            environment["AISYNC_TEST_SERVER_TLS"] = try TLSFixtures.folder()
            process.environment = environment
        }
        do { try process.run() } catch {
            CLIHarness.removeTree(dir)
            throw error
        }
        try? output?.close()
        var url: String?
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline && process.isRunning {
            if let text = try? String(contentsOfFile: urlFile, encoding: .utf8), text.hasSuffix("\n") {
                url = text.trimmingCharacters(in: .whitespacesAndNewlines)
                break
            }
            usleep(10_000)
        }
        guard let url else {
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            CLIHarness.removeTree(dir)
            try #require(Bool(false), "the Imgur stand-in did not start: \(said)", sourceLocation: sourceLocation)
            throw CocoaError(.fileReadUnknown)
        }
        return ImgurStandIn(process: process, directory: dir, url: url)
    }

    /// SIGKILL: the stand-in keeps nothing worth flushing, and a child of the test runner
    /// inherits its blocked signals (SIGTERM among them), so SIGTERM would not reach it.
    package func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        CLIHarness.removeTree(directory)
    }

    // MARK: Control API

    package struct Image {
        package var id: String
        package var deletehash: String
        package var link: String
        package var originalSHA256: String
        package var servedSHA256: String
        package var transform: String
        package var description: String?
        package var deleted: Bool
        package var removed: Bool
        package var views: Int
    }

    package struct State {
        package var raw: String
        package var uploads: Int
        package var deletes: Int
        package var requests: Int
        package var failuresInjected: Int
        package var images: [Image]

        package func image(original sha: String) -> Image? { images.first { $0.originalSHA256 == sha } }
        package func image(id: String) -> Image? { images.first { $0.id == id } }
        package func views(_ id: String) -> Int { image(id: id)?.views ?? -1 }
    }

    package func state() throws -> State {
        let (status, data) = try ImgurScenario.http("GET", "\(url)/__control/state")
        let raw = String(decoding: data, as: UTF8.self)
        guard status == 200, let o = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CLIJSON.NotJSON(description: "stand-in state: \(status) \(raw)")
        }
        let images = (o["images"] as? [[String: Any]] ?? []).map { i in
            Image(
                id: i["id"] as? String ?? "", deletehash: i["deletehash"] as? String ?? "",
                link: i["link"] as? String ?? "",
                originalSHA256: i["original_sha256"] as? String ?? "",
                servedSHA256: i["served_sha256"] as? String ?? "",
                transform: i["transform"] as? String ?? "", description: i["description"] as? String,
                deleted: i["deleted"] as? Bool ?? false, removed: i["removed"] as? Bool ?? false,
                views: i["views"] as? Int ?? 0)
        }
        return State(
            raw: raw, uploads: o["uploads"] as? Int ?? -1, deletes: o["deletes"] as? Int ?? -1,
            requests: o["requests"] as? Int ?? -1, failuresInjected: o["failures_injected"] as? Int ?? -1,
            images: images)
    }

    /// Queues a failure rule (`POST /__control/fail`).
    package func fail(_ rule: [String: Any]) throws {
        let (status, data) = try ImgurScenario.http(
            "POST", "\(url)/__control/fail", body: try JSONSerialization.data(withJSONObject: rule))
        try #require(status == 200, "cannot queue \(rule): \(String(decoding: data, as: UTF8.self))")
    }

    package func reset() throws {
        let (status, data) = try ImgurScenario.http("POST", "\(url)/__control/reset", body: Data("{}".utf8))
        try #require(status == 200, "reset failed: \(String(decoding: data, as: UTF8.self))")
    }

    /// Imgur removes the image (not a client delete).
    package func remove(_ id: String) throws {
        let (status, data) = try ImgurScenario.http(
            "POST", "\(url)/__control/remove", body: try JSONSerialization.data(withJSONObject: ["id": id]))
        try #require(status == 200, "remove failed: \(String(decoding: data, as: UTF8.self))")
    }
}

package enum ImgurScenario {
    /// The environment of an aisync child: the harness's, without any Imgur setting of the
    /// runner, plus `env`.
    package static func environment(_ env: [String: String]) -> [String: String] {
        var e = CLIHarness.baseEnvironment()
        for key in ["AISYNC_IMGUR_CLIENT_ID", "AISYNC_IMGUR_TOKEN", "AISYNC_IMGUR_API"] { e[key] = nil }
        for (k, v) in env { e[k] = v }
        return e
    }

    package static func run(_ store: CLIStore, _ arguments: [String], env: [String: String] = [:], timeout: Double = 60)
        -> CLIResult
    {
        CLIHarness.runProcess(
            CLIHarness.executable, arguments + ["--store", store.path], environment: environment(env),
            timeout: timeout, display: ["aisync"] + arguments)
    }

    package static func start(_ store: CLIStore, _ arguments: [String], env: [String: String]) throws
        -> CLIBackgroundProcess
    {
        try CLIHarness.start(
            CLIHarness.executable, arguments + ["--store", store.path], environment: environment(env), stdin: nil,
            display: ["aisync"] + arguments)
    }

    /// An empty folder remote.
    package static func makeRemote() -> String { CLIHarness.makeTemporaryDirectory() }

    package static func remoteHasObject(_ remote: String, _ sha: String) -> Bool {
        FileManager.default.fileExists(atPath: "\(remote)/objects/\(sha.prefix(2))/\(sha)")
    }

    /// How many answers sync/imgur.json holds that are not recorded yet.
    package static func answeredCount(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path),
            let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return 0 }
        return (o["answered"] as? [String: Any])?.count ?? 0
    }

    package static func parseISO(_ text: String) -> Double? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d.timeIntervalSince1970 }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)?.timeIntervalSince1970
    }

    // MARK: Images

    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c >> 1) ^ (0xEDB8_8320 & (0 &- (c & 1))) }
        }
        return ~c
    }

    package static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    /// The fixture PNG with a tEXt chunk after IHDR: a valid PNG of about `padding` more bytes,
    /// different for each `tag`.
    package static func png(tag: String, padding: Int) -> Data {
        let base = [UInt8](CLIFixtures.png.bytes)
        let ihdrEnd = 8 + 25
        let type = Array("tEXt".utf8)
        let text = Array("Comment".utf8) + [0] + Array(tag.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: padding)
        let chunk = bigEndian(UInt32(text.count)) + type + text + bigEndian(crc32(type + text))
        return Data(Array(base[..<ihdrEnd]) + chunk + Array(base[ihdrEnd...]))
    }

    @discardableResult
    package static func writePNG(in directory: String, name: String, tag: String, padding: Int) -> String {
        CLIFixtures.writeFile(png(tag: tag, padding: padding), in: directory, name: name)
    }

    // MARK: HTTP (synchronous; the completion runs on URLSession's own queue)

    package struct Reply: Sendable {
        package var status = 0
        package var data = Data()
        package var error: (any Error)?
    }

    package static let session: URLSession = {
        let c = URLSessionConfiguration.ephemeral
        c.timeoutIntervalForRequest = 30
        c.urlCache = nil
        return URLSession(configuration: c)
    }()

    package static func http(_ method: String, _ url: String, body: Data? = nil) throws -> (Int, Data) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let box = Mutex(Reply())
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            let reply = Reply(
                status: (response as? HTTPURLResponse)?.statusCode ?? 0, data: data ?? Data(), error: error)
            box.withLock { $0 = reply }
            done.signal()
        }
        task.resume()
        done.wait()
        let reply = box.withLock { $0 }
        if let error = reply.error { throw error }
        return (reply.status, reply.data)
    }

    /// GET of a media link without following redirects: the status and Location.
    package static func mediaStatus(_ link: String) throws -> (status: Int, location: String) {
        let script = """
            import http.client, sys, urllib.parse
            p = urllib.parse.urlsplit(sys.argv[1])
            c = http.client.HTTPConnection(p.hostname, p.port, timeout=10)
            c.request("GET", p.path)
            r = c.getresponse()
            print(r.status, r.getheader("Location") or "")
            """
        let r = CLIHarness.runProcess("/usr/bin/env", ["python3", "-c", script, link])
        try #require(r.exitCode == 0, "\(r)")
        let parts = r.trimmedStdout.split(separator: " ", maxSplits: 1).map(String.init)
        return (Int(parts.first ?? "") ?? 0, parts.count > 1 ? parts[1] : "")
    }

    package static func sha256(ofURL url: String) throws -> String {
        let (status, data) = try http("GET", url)
        try #require(status == 200, "GET \(url): \(status)")
        return try CLIFixtures.sha256(data)
    }
}

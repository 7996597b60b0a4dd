import AISyncCore
import AISyncHTTP
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

/// `scripts/fault_proxy.py` in front of a test server, for the network-fault suite (issue 10):
/// started by the test on a free loopback port with its own log, killed at the end of it.
///
/// The proxy keeps the path, so a remote `http://127.0.0.1:APACHE/dav/x` is reached through it
/// as `http://127.0.0.1:PROXY/dav/x` (``url(for:)``). A `secure` proxy speaks TLS to its
/// clients (`https://127.0.0.1:PROXY/dav/x`, the test certificates of ``TLSFixtures``) and
/// plain HTTP upstream: the faults then happen to TLS connections.
package final class FaultProxy: Sendable {
    package let port: Int
    package let pid: Int32
    package let seed: UInt64
    /// One JSON line per request: `{n, method, path, fault, reused, status, ms, bytes}`.
    package let logPath: String
    package let directory: String
    package let server: TestServer
    /// The proxy speaks TLS to its clients.
    package let secure: Bool

    private init(
        port: Int, pid: Int32, seed: UInt64, logPath: String, directory: String, server: TestServer, secure: Bool
    ) {
        self.secure = secure
        self.port = port
        self.pid = pid
        self.seed = seed
        self.logPath = logPath
        self.directory = directory
        self.server = server
    }

    /// Starts the proxy in front of `server` with faults on `rate` of the requests, drawn from `seed`.
    package static func start(
        upstream server: TestServer, seed: UInt64, rate: Double = 0.15, slowSeconds: Double = 1.0,
        secure: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> FaultProxy {
        let upstream = try #require(
            URLComponents(string: server.baseURL), "bad server URL \(server.baseURL)", sourceLocation: sourceLocation)
        let host = upstream.host ?? "127.0.0.1"
        let upstreamPort = try #require(upstream.port, "no port in \(server.baseURL)", sourceLocation: sourceLocation)
        let directory = CLIHarness.makeTemporaryDirectory()
        let logPath = "\(directory)/fault-proxy.log"
        let process = Process()
        // The system interpreter itself, never a shim (see SlowServerTests): terminate must end the proxy.
        let python =
            FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "/usr/bin/env"
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments =
            (python == "/usr/bin/env" ? ["python3"] : []) + [
                "\(CLIHarness.packageRoot)/scripts/fault_proxy.py", "--upstream", "http://\(host):\(upstreamPort)",
                "--seed", String(seed), "--rate", String(rate), "--slow", String(slowSeconds), "--log", logPath,
            ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        process.standardInput = FileHandle.nullDevice
        if secure {
            var environment = ProcessInfo.processInfo.environment
            environment["AISYNC_TEST_SERVER_TLS"] = try TLSFixtures.folder()
            process.environment = environment
        }
        try process.run()
        let pid = process.processIdentifier
        // The first line is the port, written once the proxy listens.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else {
            kill(pid, SIGKILL)
            CLIHarness.removeTree(directory)
            try #require(Bool(false), "fault_proxy.py printed no port: \(text)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        if secure { try TLSFixtures.crossCheck(port: port) }
        return FaultProxy(
            port: port, pid: pid, seed: seed, logPath: logPath, directory: directory, server: server, secure: secure)
    }

    /// Kills the proxy and removes its log (call `log()` first when it is wanted). With
    /// AISYNC_FAULT_PROXY_LOGS set to a directory, the log is kept there as `fault-proxy-SEED.log`.
    package func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        if let keep = ProcessInfo.processInfo.environment["AISYNC_FAULT_PROXY_LOGS"], !keep.isEmpty {
            try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            let target = "\(keep)/fault-proxy-\(seed)-\(port).log"
            try? FileManager.default.removeItem(atPath: target)
            try? FileManager.default.copyItem(atPath: logPath, toPath: target)
        }
        CLIHarness.removeTree(directory)
    }

    /// `url` of a remote on the upstream server, reached through the proxy instead.
    package func url(for url: String) -> String {
        guard var c = URLComponents(string: url) else { return url }
        if secure { c.scheme = "https" }
        c.host = "127.0.0.1"
        c.port = port
        return c.string ?? url
    }

    /// What the proxy counted: `requests`, `injected`, `faults` by kind.
    package struct Stats: Sendable {
        package var requests: Int
        package var injected: Int
        package var faults: [String: Int]
    }

    /// Sends a control command (`rate/0`, `next/put_applied_reset/PUT+reused`, `stats`).
    @discardableResult
    package func control(_ command: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Stats {
        let data: Data
        if secure {
            // URLSession cannot be given the test CA: aisync's own client, which can.
            let transport = SocketTransport(
                timeoutSeconds: 30, trust: TLSTrust(certificates: try TLSFixtures.authority()))
            let answer = try await transport.send(
                HTTPRequest(
                    method: "GET", url: "https://127.0.0.1:\(port)/__fault_proxy__/\(command)",
                    headers: ["Connection": "close"]), downloadTo: nil, maxBytes: 1 << 20)
            data = Data(answer.body)
        } else {
            let url = try #require(
                URL(string: "http://127.0.0.1:\(port)/__fault_proxy__/\(command)"), sourceLocation: sourceLocation)
            var request = URLRequest(url: url)
            request.setValue("close", forHTTPHeaderField: "Connection")
            (data, _) = try await RemoteHTTP.session.data(for: request)
        }
        let object = try #require(
            try JSONSerialization.jsonObject(with: data) as? [String: Any],
            "proxy control answered \(String(decoding: data, as: UTF8.self))",
            sourceLocation: sourceLocation)
        try #require(object["error"] == nil, "proxy control \(command): \(object)", sourceLocation: sourceLocation)
        return Stats(
            requests: object["requests"] as? Int ?? 0, injected: object["injected"] as? Int ?? 0,
            faults: object["faults"] as? [String: Int] ?? [:])
    }

    /// Turns random faults off (0) or sets their rate.
    package func setRate(_ rate: Double) async throws { try await control("rate/\(rate)") }

    /// The next request with `method` (on a reused connection with `reusedOnly`) gets `fault`.
    package func force(_ fault: String, method: String, reusedOnly: Bool = false) async throws {
        try await control("next/\(fault)/\(method)\(reusedOnly ? "+reused" : "")")
    }

    /// The requests that ended between `from` and `to` (Unix times), one line each, to
    /// explain a slow sync: where its time went, and how much of it the server took.
    package func requests(from: Double, to: Double) -> String {
        let lines = log().filter { ($0["t"] as? Double).map { $0 >= from && $0 <= to + 0.5 } ?? false }.map {
            e -> String in
            let at = String(format: "%+.2f", ((e["t"] as? Double) ?? from) - from)
            return
                "\(at) \(e["method"] ?? "?") \(e["path"] ?? "?") fault=\(e["fault"] ?? "-") status=\(e["status"] ?? "-") ms=\(e["ms"] ?? "-") upstream_ms=\(e["up_ms"] ?? "-")"
        }
        let load =
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines) ?? "?"
        return "load average \(load); requests through the proxy:\n" + lines.joined(separator: "\n")
    }

    /// The log's lines, decoded.
    package func log() -> [[String: Any]] {
        let text = String(decoding: FileManager.default.contents(atPath: logPath) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

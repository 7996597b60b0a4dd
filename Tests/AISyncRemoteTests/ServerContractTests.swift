import AISyncHTTP
import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncRemote

/// What each real server must do for the sync planners' assumptions to hold (the decisions
/// themselves are table-tested in SyncPlannerTests, in milliseconds):
/// - Apache mod_dav, rclone and lighttpd's mod_webdav give a head a new ETag in their listing on
///   every rewrite, even one of the same size within the same second — pulls compare listed
///   ETags to find heads that moved;
/// - WsgiDAV's ETag is inode, mtime in whole seconds and size, so a same-size rewrite within one
///   second keeps it: a pull does not remember an ETag it read moments after a change
///   (`PullPlanner.rememberedETag`), which every server's `Last-Modified` and `Date` tell;
/// - nginx's ETag is its mtime in seconds and the size too: that is why, on plain HTTP remotes,
///   heads are compared by their numbers (`PullPlanner.headMoved`), never by ETag;
/// - a listed ETag is the one a GET answers with (WsgiDAV lists it without its quotes);
/// - an `If-Match` on a missing file is refused by Apache and lighttpd but creates the file on
///   rclone, WsgiDAV and nginx: the design never relies on conditions (docs/DESIGN.md §5.2).
@Suite("Server contracts", .tags(.servers), .needsServers)
struct ServerContractTests {
    /// aisync's own client for a test remote on one of the HTTP servers.
    static func client(_ remote: TestRemote) throws -> HTTPRemote {
        HTTPRemote(
            location: try RemoteLocation(url: remote.url, plain: remote.kind.isPlain, insecure: false),
            transport: LiveTransport.make(timeoutSeconds: 30),
            credentials: Credentials(user: remote.server.user, password: remote.server.password))
    }

    /// An ETag without its weak marker (`W/"x"` and `"x"` compare equal, as pulls compare them).
    static func opaque(_ etag: String?) -> String? { etag.map { $0.hasPrefix("W/") ? String($0.dropFirst(2)) : $0 } }

    @Test(
        "a same-size rewrite within one second: listed ETags change on Apache, rclone and lighttpd; WsgiDAV's and nginx's may not",
        arguments: RemoteKind.servers)
    func sameSecondRewrite(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("contract")
        defer { Task { await remote.remove() } }
        let url = "\(remote.url)/head.json"
        // Two writes of one size, back to back; retried (bounded: a loaded machine can take more
        // than a second per pair) until both land in one second.
        var landedInOneSecond = false
        var etags: (String?, String?) = (nil, nil)
        for attempt in 0..<30 {
            let put1 = try await RemoteHTTP.send(
                "PUT", url, server: remote.server, body: Data("{\"seq\":\(attempt)1}".utf8))
            let first = try await listedOrHeadETag(kind, remote, "head.json")
            let put2 = try await RemoteHTTP.send(
                "PUT", url, server: remote.server, body: Data("{\"seq\":\(attempt)2}".utf8))
            let second = try await listedOrHeadETag(kind, remote, "head.json")
            try #require(
                (200..<300).contains(put1.status) && (200..<300).contains(put2.status),
                "PUT failed: \(put1.status) \(put2.status)")
            let head = try await RemoteHTTP.send("HEAD", url, server: remote.server)
            if first.lastModified != nil, first.lastModified == head.headers["last-modified"] {
                landedInOneSecond = true
                etags = (first.etag, second.etag)
                break
            }
        }
        try #require(landedInOneSecond, "\(kind): no two writes landed within one second in 30 tries")
        #expect(etags.0 != nil && etags.1 != nil, "\(kind) gives ETags")
        switch kind {
        case .apache, .rclone, .lighttpd, .apacheTLS:
            #expect(
                etags.0 != etags.1, "\(kind): a listing must show a new ETag for every rewrite, or pulls miss heads")
        case .nginx, .nginxTLS:
            #expect(
                etags.0 == etags.1,
                "nginx's ETag is seconds and size; if it changed, nginx changed and the numbers-not-ETags rule could be revisited"
            )
        case .wsgidav:
            #expect(
                etags.0 == etags.1,
                "WsgiDAV's ETag is inode, seconds and size; if it changed, WsgiDAV changed (PullPlanner.rememberedETag copes either way)"
            )
        case .folder, .seaweedfs, .moto:
            break
        }
    }

    @Test("a listed ETag is the one a GET and the PUT that wrote the file answer with", arguments: RemoteKind.webdav)
    func listedETagIsTheReadOne(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("contract-etag")
        defer { Task { await remote.remove() } }
        let client = try Self.client(remote)
        let written = try await client.write("heads/x.json", Array("{\"seq\":1}\n".utf8), condition: .createOnly)
        let read = try #require(try await client.read("heads/x.json"), "\(kind): the file just written is missing")
        let listed = try #require(
            try await client.list("heads")?.first { $0.name == "x.json" }, "\(kind): the listing lacks the file")
        #expect(read.etag != nil, "\(kind): a GET gives an ETag")
        #expect(
            Self.opaque(listed.etag) == Self.opaque(read.etag),
            "\(kind): listed \(listed.etag ?? "nil") but read \(read.etag ?? "nil"): a pull would read every head on every sync"
        )
        if case .written(let etag?) = written {
            #expect(
                Self.opaque(etag) == Self.opaque(read.etag),
                "\(kind): the PUT answered \(etag), the GET \(read.etag ?? "nil")")
        }
    }

    @Test(
        "an If-Match write of a missing file: refused by Apache and lighttpd, created by rclone, WsgiDAV and nginx",
        arguments: RemoteKind.servers)
    func ifMatchOnAMissingFile(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("contract-ifmatch")
        defer { Task { await remote.remove() } }
        let client = try Self.client(remote)
        let result = try await client.write("gone.json", Array("{}\n".utf8), condition: .replacing(etag: "\"1-2-3\""))
        let created = try await client.exists("gone.json")
        switch kind {
        case .apache, .lighttpd, .apacheTLS:
            #expect(result == .preconditionFailed && !created, "\(kind): \(result), created: \(created)")
        case .rclone, .wsgidav, .nginx, .nginxTLS:
            // If this starts failing, the server began honouring the condition: update the list.
            #expect(result != .preconditionFailed && created, "\(kind): \(result), created: \(created)")
        case .folder, .seaweedfs, .moto:
            break
        }
    }

    @Test(
        "whole-second ETags: a GET says when the file changed and when it answered; two seconds on, its ETag is settled",
        arguments: [RemoteKind.wsgidav, .nginx])
    func datesOnEveryRead(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("contract-settled")
        defer { Task { await remote.remove() } }
        let client = try Self.client(remote)
        _ = try await client.write("head.json", Array("{\"seq\":1}\n".utf8), condition: .always)
        // Without both dates every ETag would count as settled (HTTPRemote.etagSettled), and a
        // pull could trust one a same-second rewrite keeps.
        let raw = try await RemoteHTTP.send("GET", "\(remote.url)/head.json", server: remote.server)
        let modified = raw.headers["last-modified"].flatMap(HTTPDate.seconds)
        let date = raw.headers["date"].flatMap(HTTPDate.seconds)
        let answered = try #require(date, "\(kind): a GET must carry a Date (an HTTP date): \(raw.headers)")
        let changed = try #require(modified, "\(kind): a GET must carry a Last-Modified (an HTTP date): \(raw.headers)")
        #expect(answered >= changed, "\(kind): Last-Modified after Date: \(raw.headers)")
        try await Task.sleep(for: .milliseconds(2100))
        let later = try #require(try await client.read("head.json"))
        #expect(later.etag != nil && later.etagSettled, "\(kind): two seconds after the write, the ETag is settled")
    }

    /// The ETag aisync would see: from a PROPFIND listing on WebDAV, from HEAD on plain HTTP;
    /// with the Last-Modified of that moment.
    func listedOrHeadETag(_ kind: RemoteKind, _ remote: TestRemote, _ name: String) async throws -> (
        etag: String?, lastModified: String?
    ) {
        let head = try await RemoteHTTP.send("HEAD", "\(remote.url)/\(name)", server: remote.server)
        guard kind != .nginx else { return (head.headers["etag"], head.headers["last-modified"]) }
        let listing = try await RemoteHTTP.send(
            "PROPFIND", "\(remote.url)/", server: remote.server, headers: ["Depth": "1"])
        let xml = listing.text
        // The <getetag> of the response whose href ends with the name.
        for response in xml.components(separatedBy: "response>") where response.contains("\(name)</") {
            if let start = response.range(of: "getetag>"),
                let end = response.range(of: "</", range: start.upperBound..<response.endIndex)
            {
                return (String(response[start.upperBound..<end.lowerBound]), head.headers["last-modified"])
            }
        }
        return (nil, head.headers["last-modified"])
    }
}

import AISyncTestSupport
import Foundation
import Testing

/// What each real server must do for the sync planners' assumptions to hold (the decisions
/// themselves are table-tested in SyncPlannerTests, in milliseconds):
/// - a server that lists (Apache mod_dav, rclone) gives a head a new ETag in its listing on
///   every rewrite, even one of the same size within the same second — pulls compare listed
///   ETags to find heads that moved;
/// - nginx's ETag is its mtime in seconds and the size, so a same-size rewrite within one
///   second keeps it: that is why, on plain HTTP remotes, heads are compared by their numbers
///   (`PullPlanner.headMoved`), never by ETag.
@Suite("Server contracts", .tags(.servers), .needsServers)
struct ServerContractTests {
    @Test(
        "a same-size rewrite within one second: listed ETags change on WebDAV, nginx's may not",
        arguments: [RemoteKind.apache, .rclone, .nginx])
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
        case .apache, .rclone:
            #expect(
                etags.0 != etags.1, "\(kind): a listing must show a new ETag for every rewrite, or pulls miss heads")
        case .nginx:
            #expect(
                etags.0 == etags.1,
                "nginx's ETag is seconds and size; if it changed, nginx changed and the numbers-not-ETags rule could be revisited"
            )
        case .folder, .seaweedfs, .moto:
            break
        }
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

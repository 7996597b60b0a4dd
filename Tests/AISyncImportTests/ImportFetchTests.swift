import AISyncCore
import AISyncHTTP
import AISyncImport
import AISyncStore
import Foundation
import Testing

/// The DALL·E download policy (`Import.fetchPicture`) as an app gets it, without the CLI.
@Suite("Import: picture download policy")
struct ImportFetchTests {
    /// Answers every request with `answer` and records what it was asked.
    actor Recorder: HTTPTransport {
        let answer: HTTPResponse
        private(set) var asked: [(request: HTTPRequest, downloadTo: String?, maxBytes: Int64)] = []

        init(_ answer: HTTPResponse) { self.answer = answer }

        func send(_ request: HTTPRequest, downloadTo: String?, maxBytes: Int64) async throws(AISyncError)
            -> HTTPResponse
        {
            asked.append((request, downloadTo, maxBytes))
            return answer
        }
    }

    @Test func downloadsOnePictureWithAGetCappedAt64MB() async throws {
        let transport = Recorder(HTTPResponse(status: 200, body: [1, 2, 3]))
        let bytes = try await Import.fetchPicture("https://files.example.com/pic.png?sig=1", transport: transport)
        #expect(bytes == [1, 2, 3])
        let asked = await transport.asked
        #expect(asked.count == 1)
        #expect(asked.first?.request == HTTPRequest(method: "GET", url: "https://files.example.com/pic.png?sig=1"))
        #expect(asked.first?.downloadTo == nil && asked.first?.maxBytes == 64 << 20)
        #expect(Import.pictureMaxBytes == 64 << 20 && Import.pictureTimeoutSeconds == 30)
    }

    @Test(arguments: [
        "file:///etc/passwd", "ftp://files.example.com/pic.png", "data:image/png;base64,AAAA", "pic.png", "",
    ])
    func refusesWhatIsNotHTTP(_ url: String) async throws {
        let transport = Recorder(HTTPResponse(status: 200, body: [1]))
        let error = await #expect(throws: AISyncError.self) { try await Import.fetchPicture(url, transport: transport) }
        #expect(error?.code == .usage && error?.message == "\(url) is not an http(s) URL")
        #expect(await transport.asked.isEmpty, "nothing is sent for \(url)")
    }

    @Test(arguments: [404, 403, 302, 500, 204])
    func anyStatusBut200IsAnError(_ status: Int) async throws {
        let transport = Recorder(HTTPResponse(status: status, body: Array("<html>".utf8)))
        let error = await #expect(throws: AISyncError.self) {
            try await Import.fetchPicture("http://127.0.0.1:8/pics/gone.png", transport: transport)
        }
        #expect(error?.code == .unavailable && error?.message == "127.0.0.1 answered \(status) for gone.png")
    }

    @Test func redirectsStayOnTheSameHost() throws {
        let from = try #require(URL(string: "https://files.example.com/a.png"))
        #expect(
            Import.pictureRedirects.follows(
                from: from, to: try #require(URL(string: "https://FILES.example.com/b.png"))))
        #expect(
            !Import.pictureRedirects.follows(
                from: from, to: try #require(URL(string: "https://elsewhere.example/b.png"))))
        #expect(
            !Import.pictureRedirects.follows(from: from, to: try #require(URL(string: "http://169.254.169.254/latest")))
        )
    }

    @Test func anAppImportsDalleURLsWithTheLibraryPolicy() async throws {
        // The same policy through Import.run, as the CLI's --fetch uses it: a refused URL is a
        // note in the summary, not a failure of the import.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aisync-fetch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store.create(at: dir.appendingPathComponent("store").path, deviceName: "test")
        let response = dir.appendingPathComponent("response.json")
        try Data(#"{"created": 1700000000, "data": [{"url": "ftp://example.com/a.png"}]}"#.utf8).write(to: response)
        let summary = try await Import.run(
            .dalle, path: response.path, into: store,
            options: Import.Options(fetch: Import.downloadPicture))
        #expect(summary.created == 0)
        #expect(
            summary.notes.contains {
                $0.contains("1 image URL(s) could not be fetched") && $0.contains("not an http(s) URL")
            },
            "\(summary.notes)")
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The live transport: one URLSession per remote, so connections are kept alive and reused,
/// with a bounded number per host.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let timeout: TimeInterval

    public init(timeoutSeconds: TimeInterval = 30, maxConnections: Int = 4) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.httpMaximumConnectionsPerHost = maxConnections
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration)
        timeout = timeoutSeconds
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPRequest, downloadTo: String?, maxBytes: Int64) async throws(AISyncError) -> HTTPResponse {
        guard let url = URL(string: request.url) else { throw AISyncError(.configuration, "invalid URL \(request.url.prefix(200))") }
        var r = URLRequest(url: url)
        r.httpMethod = request.method
        r.timeoutInterval = timeout
        for (k, v) in request.headers { r.setValue(v, forHTTPHeaderField: k) }
        do {
            let response: URLResponse
            var body: [UInt8] = []
            switch (request.body, downloadTo) {
            case (.file(let path), _):
                let (data, resp) = try await session.upload(for: r, fromFile: URL(fileURLWithPath: path))
                response = resp; body = Array(data.prefix(65536))
            case (.bytes(let bytes), _):
                let (data, resp) = try await session.upload(for: r, from: Data(bytes))
                response = resp; body = Array(data.prefix(Int(min(maxBytes, 1 << 30))))
            case (.none, let target?):
                let (file, resp) = try await session.download(for: r)
                response = resp
                let status = (resp as? HTTPURLResponse)?.statusCode ?? 0
                if (200..<300).contains(status) {
                    let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
                    if size > maxBytes {
                        try? FileManager.default.removeItem(at: file)
                        throw AISyncError(.damagedData, "\(url.path) is larger than allowed (\(size) bytes)")
                    }
                    try? FileManager.default.removeItem(atPath: target)
                    try FileManager.default.moveItem(atPath: file.path, toPath: target)
                } else {
                    body = Array((try? Data(contentsOf: file))?.prefix(65536) ?? Data())
                    try? FileManager.default.removeItem(at: file)
                }
            case (.none, nil):
                let (data, resp) = try await session.data(for: r)
                response = resp
                if Int64(data.count) > maxBytes { throw AISyncError(.damagedData, "\(url.path) is larger than allowed (\(data.count) bytes)") }
                body = Array(data)
            }
            guard let http = response as? HTTPURLResponse else { throw AISyncError(.unavailable, "\(url.host ?? "server") sent no HTTP response") }
            var headers: [String: String] = [:]
            for (k, v) in http.allHeaderFields {
                if let k = k as? String, let v = v as? String { headers[k.lowercased()] = v }
            }
            return HTTPResponse(status: http.statusCode, headers: headers, body: body)
        } catch let error as AISyncError {
            throw error
        } catch let error as URLError {
            throw Self.map(error, host: url.host ?? "the server")
        } catch {
            throw AISyncError(.unavailable, "cannot reach \(url.host ?? "the server")", cause: "\(error)")
        }
    }

    static func map(_ error: URLError, host: String) -> AISyncError {
        switch error.code {
        case .timedOut:
            return AISyncError(.temporary, "\(host) did not answer in time", hint: "Try again later")
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .secureConnectionFailed:
            return AISyncError(.configuration, "cannot establish a secure connection to \(host)", hint: "Check the server's TLS certificate")
        default:
            return AISyncError(.unavailable, "cannot reach \(host)", hint: "Check that the server is running and the URL is right", cause: error.localizedDescription)
        }
    }
}

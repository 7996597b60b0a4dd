import AISyncCore
import AISyncHTTP

/// The retry loop the HTTP remotes share: transient answers and transport failures are tried
/// again, at most `maxAttempts` times in all, after an exponential backoff with jitter (or the
/// server's sane `Retry-After`); cancellation stops it between attempts.
enum Retrying {
    /// Sends the request `build` makes (anew for each attempt: an S3 signature is dated) and
    /// returns the last answer, whatever its status.
    static func send(
        through transport: any HTTPTransport, maxAttempts: Int, environment: AISyncEnvironment,
        downloadTo: String?, maxBytes: Int64, isTransient: (HTTPResponse) -> Bool,
        build: () throws(AISyncError) -> HTTPRequest
    ) async throws(AISyncError) -> HTTPResponse {
        var attempt = 0
        while true {
            let request = try build()
            do {
                let response = try await transport.send(request, downloadTo: downloadTo, maxBytes: maxBytes)
                guard isTransient(response), attempt + 1 < maxAttempts else { return response }
                await environment.sleep(
                    Backoff.retryAfter(response.headers["retry-after"])
                        ?? Backoff.delay(attempt: attempt, unit: environment.randomUnit()))
            } catch  where error.code == .unavailable || error.code == .temporary {
                guard attempt + 1 < maxAttempts else { throw error }
                await environment.sleep(Backoff.delay(attempt: attempt, unit: environment.randomUnit()))
            }
            try AISyncError.checkCancellation()
            attempt += 1
        }
    }

    /// The SHA-256 of a body streamed to `localPath`: the one the transport computed on the
    /// way, else the file's.
    static func digest(of response: HTTPResponse, at localPath: String) throws(AISyncError) -> SHA256Digest {
        if let digest = response.bodyDigest { return digest }
        return try hashFile(localPath)
    }
}

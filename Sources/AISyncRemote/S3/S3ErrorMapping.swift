import AISyncCore

/// What an S3 error answer means for the user: one line, the code that picks the exit status,
/// and what to do. The body is hostile: only its code, message and a few known fields are read
/// (``S3XML/error(_:)``), each capped; the server's message goes in `cause`, without control
/// characters. No secret is ever in the line: the key's source is named, never the key.
enum S3ErrorMapping {
    /// The error for a `status` answer to `action` (`upload segments/x`), with its `body`;
    /// `keySource` says where the access key came from, `region` is the one requests were
    /// signed for, and `retryAfter` the server's `Retry-After` when it sent one.
    static func error(
        status: Int, body: [UInt8], action: String, bucket: String, keySource: String, region: String,
        retryAfter: Duration? = nil
    ) -> AISyncError {
        let document = S3XML.error(body)
        let code = document?.code ?? ""
        let cause = document.map { "\(status) \($0.code): \(printable($0.message))" } ?? "HTTP \(status)"
        switch code {
        case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "TokenRefreshRequired":
            return AISyncError(
                .permission, "S3 refused the access key from \(keySource) to \(action)",
                hint:
                    "Check the key id and secret there (a session token may have expired)", cause: cause)
        case "AccessDenied", "AllAccessDisabled":
            return AISyncError(
                .permission, "the access key from \(keySource) may not \(action) in bucket \(bucket)",
                hint: "Give the key read, write, list and delete rights on the bucket", cause: cause)
        case "RequestTimeTooSkewed":
            return AISyncError(
                .configuration, "this machine's clock is \(skew(document) ?? "too far off") S3's",
                hint: "Set the clock right (turn on network time); S3 allows 15 minutes", cause: cause)
        case "NoSuchBucket":
            return noSuchBucket(bucket, cause: cause)
        case "AuthorizationHeaderMalformed", "PermanentRedirect", "IllegalLocationConstraintException":
            if let actual = document?.fields["Region"].map(printable), !actual.isEmpty, actual != region {
                return wrongRegion(bucket: bucket, actual: actual, region: region, cause: cause)
            }
            return AISyncError(
                .configuration, "S3 answered that the bucket \(bucket) is elsewhere",
                hint: "Check the remote's region and endpoint", cause: cause)
        case "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "ConditionalRequestConflict",
            "OperationAborted":
            return AISyncError(
                .temporary, "S3 could not \(action) just now", hint: "Try again; it will resume where it stopped",
                cause: cause, retryAfter: retryAfter)
        default:
            if status >= 500 || status == 429 || status == 408 {
                return AISyncError(
                    .temporary, "S3 could not \(action) just now", hint: "Try again; it will resume where it stopped",
                    cause: cause, retryAfter: retryAfter)
            }
            return AISyncError(
                .unavailable, "S3 refused to \(action)", hint: "Check the remote's bucket, region and endpoint",
                cause: cause)
        }
    }

    /// The bucket is in region `actual`, not the `region` requests were signed for.
    /// A bucket that does not exist (NoSuchBucket, or 404 to HeadBucket, which has no body).
    static func noSuchBucket(_ bucket: String, cause: String?) -> AISyncError {
        AISyncError(
            .notFound, "the bucket \(bucket) does not exist", hint: "Create it, or check the name in the remote's URL",
            cause: cause)
    }

    static func wrongRegion(bucket: String, actual: String, region: String, cause: String?) -> AISyncError {
        AISyncError(
            .configuration, "the bucket \(bucket) is in region \(actual), not \(region)",
            hint: "Give the remote the region \(actual)", cause: cause, remedy: .useRegion(actual))
    }

    /// The region an answer says the bucket is in (AWS's `x-amz-bucket-region`, on every
    /// HeadBucket answer and on its redirects and region errors) when it is not `region`.
    static func otherRegion(_ headers: [String: String], than region: String) -> String? {
        guard let named = headers["x-amz-bucket-region"].map(printable) else { return nil }
        let actual = named.trimmingCharacters(in: .whitespaces)
        return actual.isEmpty || actual == region ? nil : actual
    }

    /// How far the request's time was from the server's, in words (`16 minutes ahead`).
    static func skew(_ document: S3XML.ErrorDocument?) -> String? {
        guard let server = document?.fields["ServerTime"].flatMap(time),
            let request = document?.fields["RequestTime"].flatMap(time)
        else { return nil }
        let seconds = (request.milliseconds - server.milliseconds) / 1000
        let size = abs(seconds)
        let amount = size >= 120 ? "\(size / 60) minutes" : "\(size) seconds"
        return "\(amount) \(seconds > 0 ? "ahead of" : "behind")"
    }

    /// `2013-05-24T00:15:00Z` (with or without milliseconds) or `20130524T001500Z`.
    static func time(_ text: String) -> Timestamp? {
        let digits = text.filter(\.isNumber)
        guard digits.count >= 14, text.hasSuffix("Z") else { return nil }
        let d = Array(digits)
        let iso =
            "\(String(d[0..<4]))-\(String(d[4..<6]))-\(String(d[6..<8]))T"
            + "\(String(d[8..<10])):\(String(d[10..<12])):\(String(d[12..<14])).000Z"
        return Timestamp(iso8601: iso)
    }

    /// `text` without control characters, at most 200 characters.
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }).prefix(200))
    }
}

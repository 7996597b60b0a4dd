import Testing

@testable import AISyncCore
@testable import AISyncRemote

// S3 error answers as one line each, with the code that picks the exit status (issue 27):
// a wrong key names where the key came from, a skewed clock says by how much, a wrong region
// names the bucket's, busy servers are temporary; nothing of the body but its code, message
// and a few known fields is read, and control characters never reach the line.

@Suite("S3 errors")
struct S3ErrorMappingTests {
    static func body(_ code: String, _ extra: String = "") -> [UInt8] {
        Array(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>\(code)</Code><Message>m\u{1B}[31m</Message>\(extra)<RequestId>1</RequestId></Error>"
                .utf8)
    }

    static func map(_ status: Int, _ body: [UInt8]) -> AISyncError {
        S3ErrorMapping.error(
            status: status, body: body, action: "upload segments/x", bucket: "photos",
            keySource: "/home/me/.aws/credentials [default]", region: "us-east-1", retryAfter: .seconds(3))
    }

    @Test(
        "Each code gives its kind of error",
        arguments: [
            (403, "InvalidAccessKeyId", "permission"), (403, "SignatureDoesNotMatch", "permission"),
            (400, "ExpiredToken", "permission"), (403, "AccessDenied", "permission"),
            (404, "NoSuchBucket", "not-found"),
            (503, "SlowDown", "temporary"), (500, "InternalError", "temporary"),
            (409, "ConditionalRequestConflict", "temporary"), (502, "", "temporary"),
            (400, "InvalidArgument", "unavailable"),
        ])
    func kinds(status: Int, code: String, kind: String) {
        let error = Self.map(status, code.isEmpty ? Array("<html>bad gateway</html>".utf8) : Self.body(code))
        #expect(error.code.name == kind, "\(status) \(code)")
        #expect(!error.description.contains("\u{1B}"), "no control characters from the body")
        if kind == "temporary" { #expect(error.retryAfter == .seconds(3)) }
    }

    @Test("A wrong key names its source and never a secret")
    func wrongKey() {
        let error = Self.map(
            403, Self.body("SignatureDoesNotMatch", "<StringToSign>AWS4-HMAC-SHA256 secret-ish</StringToSign>"))
        #expect(
            error.message == "S3 refused the access key from /home/me/.aws/credentials [default] to upload segments/x")
        #expect(!error.description.contains("StringToSign") && !error.description.contains("secret-ish"))
    }

    @Test("A skewed clock says by how much, in either direction and either time format")
    func skew() {
        let ahead = Self.map(
            403,
            Self.body(
                "RequestTimeTooSkewed",
                "<RequestTime>20261203T183000Z</RequestTime><ServerTime>2026-12-03T18:10:00Z</ServerTime>"))
        #expect(ahead.code == .configuration)
        #expect(ahead.message == "this machine's clock is 20 minutes ahead of S3's")
        let behind = Self.map(
            403,
            Self.body(
                "RequestTimeTooSkewed",
                "<RequestTime>2026-12-03T18:00:00.000Z</RequestTime><ServerTime>2026-12-03T18:01:30Z</ServerTime>"))
        #expect(behind.message == "this machine's clock is 90 seconds behind S3's")
        #expect(Self.map(403, Self.body("RequestTimeTooSkewed")).message == "this machine's clock is too far off S3's")
    }

    @Test("A wrong region names the bucket's own")
    func wrongRegion() {
        let error = Self.map(400, Self.body("AuthorizationHeaderMalformed", "<Region>eu-west-3</Region>"))
        #expect(error.code == .configuration)
        #expect(error.message == "the bucket photos is in region eu-west-3, not us-east-1")
        #expect(error.hint == "Give the remote the region eu-west-3")
    }
}

import Testing

@testable import AISyncCore
@testable import AISyncRemote

// Where an S3 remote's objects are (issue 27): AWS endpoints from the region, any other
// provider's endpoint as given, path-style for IPs, localhost, ports and names that cannot be a
// TLS host name, virtual-hosted otherwise; keys under the prefix; URLs encoded as signed.

@Suite("S3 locations")
struct S3LocationTests {
    @Test(
        "Endpoint, region and addressing",
        arguments: [
            // url, endpoint, region, expected host, addressing, request host
            ("s3://photos", nil, nil, "s3.us-east-1.amazonaws.com", "virtual", "photos.s3.us-east-1.amazonaws.com"),
            (
                "s3://photos/aisync", nil, "eu-west-3", "s3.eu-west-3.amazonaws.com", "virtual",
                "photos.s3.eu-west-3.amazonaws.com"
            ),
            ("s3://my.photos", nil, "eu-west-3", "s3.eu-west-3.amazonaws.com", "path", "s3.eu-west-3.amazonaws.com"),
            ("s3://bk1", "http://127.0.0.1:8333", nil, "127.0.0.1:8333", "path", "127.0.0.1:8333"),
            ("s3://bk1", "https://localhost", "garage", "localhost", "path", "localhost"),
            ("s3://bk1", "http://[::1]:9000/", nil, "[::1]:9000", "path", "[::1]:9000"),
            (
                "s3://bk1", "https://ACCOUNT.r2.cloudflarestorage.com", "auto", "account.r2.cloudflarestorage.com",
                "virtual", "bk1.account.r2.cloudflarestorage.com"
            ),
            ("s3://Legacy_Bucket", "https://s3.wasabisys.com", nil, "s3.wasabisys.com", "path", "s3.wasabisys.com"),
        ] as [(String, String?, String?, String, String, String)])
    func addressing(
        url: String, endpoint: String?, region: String?, host: String, addressing: String, requestHost: String
    )
        throws
    {
        let location = try S3Location(url: url, endpoint: endpoint, region: region, addressing: nil)
        #expect(location.endpointHost == host)
        #expect(location.addressing.rawValue == addressing)
        #expect(location.requestHost == requestHost)
        #expect(location.region == (region ?? "us-east-1"))
    }

    @Test("Keys live under the prefix; URLs are encoded once, as they are signed; either addressing can be asked for")
    func keysAndURLs() throws {
        let virtual = try S3Location(
            url: "s3://photos//family/aisync/", endpoint: nil, region: "eu-west-3", addressing: nil)
        #expect(virtual.prefix == "family/aisync")
        #expect(virtual.key("segments/a b+c") == "family/aisync/segments/a b+c")
        #expect(virtual.objectPath("segments/x") == "/family/aisync/segments/x")
        #expect(virtual.objectPath("") == "/")
        #expect(
            virtual.url("segments/a b+c~é", query: [("x-id", "1/2")])
                == "https://photos.s3.eu-west-3.amazonaws.com/family/aisync/segments/a%20b%2Bc~%C3%A9?x-id=1%2F2")
        let path = try S3Location(url: "s3://photos", endpoint: "http://127.0.0.1:8333", region: nil, addressing: nil)
        #expect(path.objectPath("k") == "/photos/k" && path.objectPath("") == "/photos/")
        #expect(path.url("", query: [("list-type", "2")]) == "http://127.0.0.1:8333/photos/?list-type=2")
        let forced = try S3Location(
            url: "s3://photos", endpoint: "http://127.0.0.1:8333", region: nil, addressing: .virtualHosted)
        #expect(forced.requestHost == "photos.127.0.0.1:8333")
    }

    @Test(
        "Refused with one line: not s3://, bad bucket names, endpoints with a path, . and .. folders",
        arguments: [
            ("https://photos", nil), ("s3://", nil), ("s3://ab", nil), ("s3://-photos", nil), ("s3://photos-", nil),
            ("s3://pho..tos", nil), ("s3://192.168.1.2", nil), ("s3://phötos", nil),
            ("s3://\(String(repeating: "a", count: 64))", nil), ("s3://photos/../x", nil), ("s3://photos/./x", nil),
            ("s3://photos", "ftp://host"), ("s3://photos", "https://host/bucket"), ("s3://photos", "https://user@host"),
            ("s3://photos", "https://"),
        ] as [(String, String?)])
    func refused(url: String, endpoint: String?) {
        #expect(throws: AISyncError.self) {
            _ = try S3Location(url: url, endpoint: endpoint, region: nil, addressing: nil)
        }
    }
}

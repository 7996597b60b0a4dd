import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncTesting

// AWS Signature Version 4 (issue 27): AWS's published examples, then botocore's own signer on
// random requests (scripts/sigv4_reference.py): keys with spaces, `+`, `~`, `%` and unicode,
// query strings, empty and non-empty bodies, session tokens.

@Suite("SigV4 signing")
struct SigV4Tests {
    static let exampleKey = SigV4.Credentials(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let exampleTime = Timestamp(iso8601: "2013-05-24T00:00:00.000Z")!

    /// The S3 examples of "Examples: Signature Calculations in AWS Signature Version 4" (Amazon
    /// S3 API reference): GET Object with a range, GET Bucket lifecycle, GET Bucket (list).
    @Test(
        "AWS's published S3 examples",
        arguments: [
            (
                "/test.txt", [(String, String)](), [("Range", "bytes=0-9")],
                "host;range;x-amz-content-sha256;x-amz-date",
                "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
            ),
            (
                "/", [("lifecycle", "")], [], "host;x-amz-content-sha256;x-amz-date",
                "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"
            ),
            (
                "/", [("prefix", "J"), ("max-keys", "2")], [], "host;x-amz-content-sha256;x-amz-date",
                "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
            ),
        ])
    func publishedExamples(
        path: String, query: [(String, String)], headers: [(String, String)], signedHeaders: String, signature: String
    ) {
        let request = SigV4.Request(
            method: "GET", path: path, query: query.map { (name: $0.0, value: $0.1) },
            headers: [(name: "Host", value: "examplebucket.s3.amazonaws.com")]
                + headers.map { (name: $0.0, value: $0.1) },
            payloadHash: SigV4.emptyPayloadHash)
        let added = SigV4.sign(request, credentials: Self.exampleKey, region: "us-east-1", time: Self.exampleTime)
        let header = Dictionary(uniqueKeysWithValues: added.map { ($0.name, $0.value) })
        #expect(header["x-amz-date"] == "20130524T000000Z")
        #expect(
            header["authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=\(signedHeaders), Signature=\(signature)"
        )
    }

    /// The signing key and signature steps of the general SigV4 test suite's `get-vanilla`
    /// (service `service`, no payload header): each step of the algorithm on its own.
    @Test("The general test suite's get-vanilla, step by step")
    func getVanilla() {
        let request = SigV4.Request(
            method: "GET", path: "/",
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
            payloadHash: SigV4.emptyPayloadHash)
        let (canonical, signed) = SigV4.canonicalRequest(request)
        #expect(
            canonical
                == "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
                + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(signed == "host;x-amz-date")
        let toSign = SigV4.stringToSign(
            amzDate: "20150830T123600Z", scope: "20150830/us-east-1/service/aws4_request", canonicalRequest: canonical)
        #expect(toSign.hasSuffix("bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63"))
        let key = SigV4.signingKey(
            secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", date: "20150830", region: "us-east-1",
            service: "service")
        #expect(
            Hex.encode(HMACSHA256.authenticate(Array(toSign.utf8), key: key))
                == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test("Paths are encoded once and never normalized; queries encode `/` and sort by name, then value")
    func encoding() {
        #expect(SigV4.encode("/a b/+c~d/%/é/😀", slash: false) == "/a%20b/%2Bc~d/%25/%C3%A9/%F0%9F%98%80")
        #expect(SigV4.encode("a/b=c&d", slash: true) == "a%2Fb%3Dc%26d")
        let request = SigV4.Request(
            method: "GET", path: "/b//./x/../y", query: [("b", "2"), ("a", "z"), ("a", "1"), ("c", "")],
            headers: [("Host", "h")], payloadHash: "UNSIGNED-PAYLOAD")
        let lines = SigV4.canonicalRequest(request).text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == "/b//./x/../y")
        #expect(lines[2] == "a=1&a=z&b=2&c=")
    }

    @Test("A key's description never shows its secret or token")
    func descriptionHidesTheSecret() {
        let key = SigV4.Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "s3cr3t/+x", sessionToken: "t0k3n")
        #expect(!"\(key)".contains("s3cr3t") && !"\(key)".contains("t0k3n") && "\(key)".contains("AKIDEXAMPLE"))
    }

    /// 300 random requests signed by botocore's S3 signer must get the same headers here.
    @Test("botocore's S3 signer gives the same headers on random requests")
    func matchesBotocore() throws {
        let seed = UInt64.random(in: 0..<(1 << 31))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "\(CLIHarness.packageRoot)/scripts/sigv4_reference.py", String(seed), "300"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "sigv4_reference.py failed (is Python's botocore installed?)")
        var count = 0
        for line in output.split(separator: UInt8(ascii: "\n")) {
            let c = try JSONParser.parse(Array(line))
            let pairs = { (v: JSONValue?) in
                (v?.arrayValue ?? []).map {
                    (name: $0.arrayValue![0].stringValue!, value: $0.arrayValue![1].stringValue!)
                }
            }
            let body = Hex.decode(c["body"]!.stringValue!, count: c["body"]!.stringValue!.utf8.count / 2)!
            let request = SigV4.Request(
                method: c["method"]!.stringValue!, path: c["path"]!.stringValue!, query: pairs(c["query"]),
                headers: pairs(c["headers"]), payloadHash: SHA256.hash(body).hex)
            let key = SigV4.Credentials(
                accessKeyID: c["access_key"]!.stringValue!, secretAccessKey: c["secret_key"]!.stringValue!,
                sessionToken: c["token"]?.stringValue)
            let added = SigV4.sign(
                request, credentials: key, region: c["region"]!.stringValue!,
                time: Timestamp(milliseconds: c["time"]!.intValue!))
            let expected = c["expected"]!.objectValue!.map { ($0.key, $0.value.stringValue!) }
            #expect(
                Dictionary(uniqueKeysWithValues: added.map { ($0.name, $0.value) })
                    == Dictionary(uniqueKeysWithValues: expected),
                "seed \(seed): \(String(decoding: line, as: UTF8.self))")
            count += 1
        }
        #expect(count == 300)
    }
}

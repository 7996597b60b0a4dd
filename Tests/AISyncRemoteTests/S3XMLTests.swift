import Testing

@testable import AISyncRemote

// What S3-compatible servers answer (issue 27), read strictly: ListObjectsV2 pages (with and
// without S3's namespace, truncated with a token, folders), error documents; anything else
// is refused, never half-read.

@Suite("S3 XML answers")
struct S3XMLTests {
    /// The example answer of ListObjectsV2 in the Amazon S3 API reference, with an entity-escaped
    /// ETag, as AWS sends it.
    static let awsExample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
          <Name>bucket</Name>
          <Prefix/>
          <KeyCount>205</KeyCount>
          <MaxKeys>1000</MaxKeys>
          <IsTruncated>false</IsTruncated>
          <Contents>
            <Key>my-image.jpg</Key>
            <LastModified>2009-10-12T17:50:30.000Z</LastModified>
            <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag>
            <Size>434234</Size>
            <StorageClass>STANDARD</StorageClass>
          </Contents>
          <Contents>
            <Key> a key &amp; spaces </Key>
            <ETag>"3858f62230ac3c915f300c664312c11f-9"</ETag>
            <Size>0</Size>
          </Contents>
        </ListBucketResult>
        """

    @Test("AWS's example page: keys exactly (spaces and &amp; kept), opaque ETags, sizes")
    func awsPage() throws {
        let page = try #require(S3XML.listPage(Array(Self.awsExample.utf8)))
        #expect(
            page.objects == [
                .init(key: "my-image.jpg", etag: "\"fba9dede5f27731c9771645a39863328\"", size: 434_234),
                .init(key: " a key & spaces ", etag: "\"3858f62230ac3c915f300c664312c11f-9\"", size: 0),
            ])
        #expect(!page.isTruncated && page.nextContinuationToken == nil && page.keyCount == 205)
    }

    @Test("A truncated page with its token and folders; a listing without a namespace reads alike")
    func truncatedWithFolders() throws {
        let body = """
            <ListBucketResult><Name>b</Name><Prefix>aisync/</Prefix><Delimiter>/</Delimiter>\
            <IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>\
            <CommonPrefixes><Prefix>aisync/objects/</Prefix></CommonPrefixes>\
            <CommonPrefixes><Prefix>aisync/segments/</Prefix></CommonPrefixes>\
            <Contents><Key>aisync/devices.json</Key><Size>12</Size></Contents></ListBucketResult>
            """
        let page = try #require(S3XML.listPage(Array(body.utf8)))
        #expect(page.isTruncated && page.nextContinuationToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        #expect(page.commonPrefixes == ["aisync/objects/", "aisync/segments/"])
        #expect(page.objects == [.init(key: "aisync/devices.json", etag: nil, size: 12)])
    }

    @Test(
        "Not a listing: refused whole",
        arguments: [
            "",
            "<Error><Code>NoSuchBucket</Code></Error>",
            "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",  // truncated, no token
            "<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>",
            "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>",
            "<ListBucketResult><Contents><Key>k</Key><Size>12x</Size></Contents></ListBucketResult>",
            "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",  // no key
            "<ListBucketResult><Contents><Key>k</Key><Size>1</Size></Contents>",  // unclosed
            "<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><ListBucketResult>&e;</ListBucketResult>",
            "<ListBucketResult xmlns='http://example.com/other'><IsTruncated>false</IsTruncated></ListBucketResult>",
        ])
    func refused(body: String) {
        #expect(S3XML.listPage(Array(body.utf8)) == nil)
    }

    @Test("Error documents: code and message; anything else is not one")
    func errors() {
        let body = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message>\
            <Condition>If-None-Match</Condition><RequestId>1</RequestId></Error>
            """
        let error = S3XML.error(Array(body.utf8))
        #expect(error?.code == "PreconditionFailed")
        #expect(error?.message == "At least one of the pre-conditions you specified did not hold")
        #expect(error?.fields == [:])
        #expect(S3XML.error(Array("<Error><Message>no code</Message></Error>".utf8)) == nil)
        #expect(S3XML.error(Array(Self.awsExample.utf8)) == nil)
        #expect(S3XML.error([0xFF, 0xFE]) == nil)
    }
}

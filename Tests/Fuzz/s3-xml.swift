/// Fuzz target `s3-xml`: an S3-compatible server's answer body, read as a ListObjectsV2 page
/// and as an error document (`S3XML`, on aisync's own strict XML reader). A page that is
/// read must be whole: every object has a key and a size, a truncated page has its token.
@testable import AISyncRemote

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let page = S3XML.listPage(bytes) {
        precondition(page.objects.allSatisfy { !$0.key.isEmpty && $0.size >= 0 })
        precondition(page.isTruncated == (page.nextContinuationToken != nil))
    }
    _ = S3XML.error(bytes)
    return 0
}

/// Fuzz target `s3-xml`: an S3-compatible server's answer body, read as a ListObjectsV2 page,
/// an error document, and each multipart answer (an upload id, a completion, a page of
/// unfinished uploads) (`S3XML`, on aisync's own strict XML reader). A page that is read must
/// be whole: every object has a key and a size, every upload a key and an id, a truncated page
/// has its token or marker.
@testable import AISyncRemote

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let page = S3XML.listPage(bytes) {
        precondition(page.objects.allSatisfy { !$0.key.isEmpty && $0.size >= 0 })
        precondition(page.isTruncated == (page.nextContinuationToken != nil))
    }
    _ = S3XML.error(bytes)
    if let id = S3XML.uploadID(bytes) { precondition(!id.isEmpty) }
    _ = S3XML.completed(bytes)
    if let uploads = S3XML.uploadsPage(bytes) {
        precondition(uploads.uploads.allSatisfy { !$0.key.isEmpty && !$0.uploadID.isEmpty })
        precondition(!uploads.isTruncated || uploads.nextKeyMarker != nil)
        precondition(uploads.uploads.count <= S3XML.FieldsCollector.maxItems)
    }
    return 0
}

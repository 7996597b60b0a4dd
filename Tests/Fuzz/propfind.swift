/// Fuzz target `propfind`: a WebDAV PROPFIND `207 Multi-Status` body from a server, through
/// `WebDAVMultistatus.parse` (aisync's own strict XML reader).
@testable import AISyncRemote

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = WebDAVMultistatus.parse(bytes)
    return 0
}

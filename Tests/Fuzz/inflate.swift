/// Fuzz target `inflate`: a raw DEFLATE stream (a zip entry's data) through
/// `Inflate.decompress`, with an output limit as `ZipArchive` gives it.
///
/// Property checked: the output never exceeds the limit (a zip bomb stops there).
@testable import AISyncImport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limit = 1 << 20
    if let out = try? Inflate.decompress(bytes, limit: limit) {
        precondition(out.count <= limit, "inflated \(out.count) bytes past the limit \(limit)")
    }
    return 0
}

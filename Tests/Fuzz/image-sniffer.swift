/// Fuzz target `image-sniffer`: the leading bytes of a file through `ImageSniffer.sniff`
/// (PNG, JPEG, GIF, WebP, BMP, TIFF, HEIC/AVIF headers).
///
/// Property checked (its documented contract): a width or height, when given, is positive
/// and fits in `Int32`.
import AISyncCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let info = ImageSniffer.sniff(bytes) else { return 0 }
    for side in [info.width, info.height] {
        if let side { precondition(side > 0 && side <= Int(Int32.max), "implausible size \(side)") }
    }
    return 0
}

/// Fuzz target `zip`: a zipped export through `ZipArchive` (central directory), every entry
/// read (stored and DEFLATE, CRC-checked), the export's documents found in it
/// (`ImportInput.zipDocuments`: manifest, shards) and its picture files (`ChatGPTAssets`).
@testable import AISyncImport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let zip = try? ZipArchive(bytes: bytes) else { return 0 }
    for name in zip.names { _ = try? zip.read(name, limit: 1 << 24) }
    _ = try? ImportInput.zipDocuments(zip, path: "fuzz.zip")
    let assets = ChatGPTAssets(zip: zip)
    for name in assets.files.prefix(8) { _ = assets.find("file-service://\(name)") }
    return 0
}

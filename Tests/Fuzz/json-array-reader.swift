/// Fuzz target `json-array-reader`: a big export's top-level JSON array read element by element
/// with `JSONArrayReader` from a file (written to a temp file per input), with tiny chunks
/// so every element boundary lands across refills, each element then parsed by `JSONParser`.
///
/// The first byte picks the chunk size (1-16 bytes); the rest is the file.
import Foundation

@testable import AISyncCore
@testable import AISyncImport

let path = NSTemporaryDirectory() + "/aisync-fuzz-array-\(ProcessInfo.processInfo.processIdentifier).json"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let chunkSize = Int(data[0] % 16) + 1
    let file = Data(bytes: data + 1, count: size - 1)
    guard FileManager.default.createFile(atPath: path, contents: file) else { fatalError("cannot write \(path)") }
    do {
        guard var reader = try JSONArrayReader(path: path, chunkSize: chunkSize) else { return 0 }
        while let element = try reader.next() { _ = try? JSONParser.parse(element) }
    } catch {
        return 0
    }
    return 0
}

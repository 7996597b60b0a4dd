/// Fuzz target `json-array-reader`: a big export's top-level JSON array read element by element
/// with `JSONArrayReader` from a file (written to a temp file per input), with tiny chunks
/// so every element boundary lands across refills, each element then parsed by `JSONParser`;
/// and read again parsed in place (`nextValues`) and into a `JSONTape` (ChatGPT's batches): the
/// same elements or the same error.
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
    // Scanned element by element, then parsed in place: the same elements, or the same error.
    var scanned: [JSONValue] = []
    var scanError: String?
    do {
        guard var reader = try JSONArrayReader(path: path, chunkSize: chunkSize) else { return 0 }
        while let element = try reader.next() { scanned.append(try ImportInput.parse(Array(element), path: path)) }
    } catch {
        scanError = "\(error.message) \(error.cause ?? "")"
    }
    var inPlace: [JSONValue] = []
    var inPlaceError: String?
    do {
        guard var reader = try JSONArrayReader(path: path, chunkSize: chunkSize) else { return 0 }
        inPlace = try reader.nextValues(upTo: .max) { (bytes) throws(AISyncError) in
            try ImportInput.parse(bytes, path: path)
        }.values
    } catch {
        inPlaceError = "\(error.message) \(error.cause ?? "")"
    }
    var taped: [JSONValue] = []
    var tapeError: String?
    do {
        guard var reader = try JSONArrayReader(path: path, chunkSize: chunkSize) else { return 0 }
        var tape = JSONTape.Builder()
        _ = try reader.nextValues(upTo: .max, into: &tape) { (bytes, tape) throws(AISyncError) in
            try ImportInput.parse(bytes, path: path, into: &tape)
        }
        taped = tape.finish().values
    } catch {
        tapeError = "\(error.message) \(error.cause ?? "")"
    }
    precondition(
        scanError == tapeError,
        "tape errors differ: \(String(describing: scanError)) / \(String(describing: tapeError))")
    precondition(scanError != nil || scanned == taped, "tape elements differ")
    precondition(
        scanError == inPlaceError,
        "errors differ: \(String(describing: scanError)) / \(String(describing: inPlaceError))")
    precondition(scanError != nil || scanned == inPlace, "elements differ")
    return 0
}

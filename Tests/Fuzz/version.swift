/// Fuzz target `version`: a journal line or a version received from a remote, as
/// `JSONParser.parse` then `Version(json:)` (verifying and trusting the id), and the same value
/// as a record body of each kind (`RecordBody(json:expected:)`, the aisync 1 body objects).
///
/// Properties checked besides "no crash": a parsed JSON value survives its own canonical bytes
/// (parse → canonicalBytes → parse gives an equal value), a version that decodes re-decodes
/// from its own journal line to the same version, and a line the journal's direct reader
/// (`CanonicalLineReader`) accepts is one the general path accepts, as the same version.
@testable import AISyncCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let direct = bytes.withUnsafeBufferPointer(CanonicalLineReader.version) {
        guard let general = try? Version(json: JSONParser.parse(bytes), verifyingID: false) else {
            fatalError("the direct reader accepted a line the general path refuses")
        }
        precondition(direct == general, "the direct reader read a line as another version")
    }
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    let canonical = value.canonicalBytes
    guard let again = try? JSONParser.parse(canonical) else {
        fatalError("canonical bytes of a parsed value do not parse")
    }
    precondition(again == value, "canonical bytes of a parsed value parse to another value")
    if let version = try? Version(json: value) {
        let line = version.json.canonicalBytes
        guard let reread = try? Version(json: JSONParser.parse(line)) else {
            fatalError("a version's own journal line does not decode")
        }
        precondition(reread == version, "a version's own journal line decodes to another version")
    }
    _ = try? Version(json: value, verifyingID: false)
    for kind in [RecordKind.chat, .story, .image] {
        _ = try? RecordBody(json: value, expected: kind)
    }
    return 0
}

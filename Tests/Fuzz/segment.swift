/// Fuzz target `segment`: a remote segment file (`segments/<device>/<seq>.seg`, format 1 and 2)
/// through `Segment.decode`, which verifies the header, every version and every object.
///
/// The expected device, sequence number and remote id are taken from the input's own header
/// line when it has them, so the fuzzer gets past the header check and into the entries.
/// Every entry line the direct reader (`Segment.plainEntry`) accepts must be one the general
/// path accepts, as the same version with the same canonical line.
@testable import AISyncCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var device = DeviceID("0123456789abcdef0123456789abcdef")!
    var seq: Int64 = 1
    var remote = "fedcba9876543210fedcba9876543210"
    if let newline = bytes.firstIndex(of: 10), let header = try? JSONParser.parse(bytes[..<newline]) {
        if let text = header["device"]?.stringValue, let d = DeviceID(text) { device = d }
        if let n = header["seq"]?.intValue { seq = n }
        if let r = header["remote"]?.stringValue { remote = r }
    }
    _ = try? Segment.decode(bytes, path: "segments/fuzz.seg", device: device, seq: seq, remoteID: remote)
    // An entry line read without a JSON tree is one the general path accepts, as the same
    // version, and the line it keeps for the journal is that version's canonical line.
    for line in bytes.split(separator: 10) {
        guard let fast = Segment.plainEntry(line) else { continue }
        guard let general = try? Segment.entry(JSONParser.parse(line)) else {
            fatalError("an entry read directly is refused by the general path")
        }
        precondition(fast.version == general.version, "an entry read directly is another version")
        precondition(fast.line == general.version.json.canonicalBytes, "an entry keeps a line that is not canonical")
    }
    return 0
}

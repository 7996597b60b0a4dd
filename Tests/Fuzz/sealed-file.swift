/// Fuzz target `sealed-file`: what an encrypted remote's server can send, as aisync reads it:
/// the input as a `keys.json` (`KeyFile(bytes:)`, which must refuse costly parameters before
/// any scrypt runs), and as a sealed file opened whole and chunk by chunk. A server without
/// the key can only get `.tampered`, `.truncated` or `.damagedData`, never a crash or
/// plaintext; its first byte also flips one byte of a genuinely sealed file.
@testable import AISyncCore

let key = [UInt8](repeating: 0x42, count: 32)
let binding = SealedFile.Binding(
    remoteID: String(repeating: "ab", count: 16), path: "heads/0123456789abcdef0123456789abcdef.json")
let genuine = SealedFile.seal(
    Array("{\"format\":1}".utf8) + [UInt8](repeating: 7, count: 70_000), dataKey: key,
    salt: [UInt8](repeating: 9, count: 24), binding: binding)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let file = try? KeyFile(bytes: bytes, shown: "keys.json") {
        for slot in file.slots {
            precondition(
                slot.parameters.isValid && 128 * slot.parameters.r * slot.parameters.n <= 256 << 20,
                "a costly slot was accepted")
        }
    }
    let opened = try? SealedFile.open(bytes, dataKey: key, binding: binding, shown: "fuzz")
    precondition(opened == nil || bytes.count >= SealedFile.headerBytes, "opened something shorter than a header")
    if size >= 3 {
        var flipped = genuine
        let at = (Int(bytes[0]) << 8 | Int(bytes[1])) % flipped.count
        flipped[at] ^= bytes[2] | 1
        do {
            _ = try SealedFile.open(flipped, dataKey: key, binding: binding, shown: "fuzz")
            preconditionFailure("a changed sealed file was opened")
        } catch {
            precondition(error.code == .tampered || error.code == .truncated, "unexpected \(error.code)")
        }
    }
    return 0
}

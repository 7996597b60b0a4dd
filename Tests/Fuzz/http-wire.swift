/// Fuzz target `http-wire`: what a server sends back on a socket, through the socket
/// transport's framing: `HTTPWire.headEnd`, `parseHead` and `framing`, then the rest as a
/// chunked body fed to `ChunkedDecoder` in pieces whose sizes the input's first byte picks.
@testable import AISyncHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let end = HTTPWire.headEnd(in: bytes) else { return 0 }
    if let head = try? HTTPWire.parseHead(Array(bytes[..<end])) {
        _ = try? head.framing(method: "GET")
        _ = head.keepsAlive
    }
    let rest = UnsafeRawBufferPointer(rebasing: bytes[end...])
    let step = max(1, Int(size > 0 ? bytes[0] : 1))
    var decoder = ChunkedDecoder()
    var total = 0
    var i = 0
    while i < rest.count, !decoder.isDone {
        let piece = UnsafeRawBufferPointer(rebasing: rest[i..<min(rest.count, i + step)])
        guard let used = try? decoder.decode(piece, emit: { total += $0.count }) else { break }
        // A decoder that takes nothing before it is done would loop forever.
        precondition(used > 0 || decoder.isDone, "the decoder made no progress")
        i += used
    }
    precondition(total <= rest.count, "more body than input")
    return 0
}

/// Fuzz target `state-files`: the small JSON files read from a remote or the store, all fed the
/// same bytes: the remote manifest (`aisync.json`), a device head (`heads/<device>.json`), the
/// device index (`devices.json`), the sync checkpoint (`sync/<remote>.json`), the store config
/// (`config.json`) and the Imgur state (`imgur.json`).
@testable import AISyncCore
@testable import AISyncImgur
@testable import AISyncStore
@testable import AISyncSync

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A head is checked against the device it is read for: take the one it names, when valid.
    var expected = DeviceID("0123456789abcdef0123456789abcdef")!
    if let value = try? JSONParser.parse(bytes), let text = value["device"]?.stringValue, let d = DeviceID(text) {
        expected = d
    }
    _ = try? RemoteManifest(bytes: bytes, location: "fuzz:")
    _ = try? DeviceHead(bytes: bytes, path: "heads/fuzz.json", expected: expected)
    _ = try? DevicesIndex(bytes: bytes, path: "devices.json")
    _ = try? SyncCheckpoint(bytes: bytes, path: "sync/fuzz.json")
    _ = try? StoreConfig(bytes: bytes, path: "config.json")
    _ = try? ImgurState(bytes: bytes, path: "imgur.json")
    return 0
}

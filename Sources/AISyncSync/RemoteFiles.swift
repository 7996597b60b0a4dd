import AISyncCore
import AISyncImgur
import AISyncRemote
import AISyncStore

/// `aisync.json` at a remote's root: the mark that a location is an aisync remote.
///
/// Format 2 marks a remote that holds records v2 segments: aisync 1 refuses it with "upgrade
/// aisync" (exit 78) before it pushes there. A format 1 remote is read as it is and raised
/// to 2 by the first push of this build. Format 3 marks a remote with snapshots (`aisync
/// compact`): heads name them and covered segments may be gone, which an aisync that knows
/// no snapshots would call damage, so it is told to upgrade instead.
/// Format 4 marks an encrypted remote (`"encrypted": true`, keys in `keys.json`): every
/// other file is sealed, which an older aisync would call damage.
struct RemoteManifest: Sendable, Equatable {
    static let currentFormat: Int64 = 2
    static let snapshotFormat: Int64 = 3
    static let encryptedFormat: Int64 = 4
    var format: Int64
    var remoteID: String
    var created: Timestamp
    /// Every file but this one and `keys.json` is sealed.
    var encrypted = false

    var json: JSONValue {
        var o: JSONObject = [
            "format": .int(format), "remote": .string(remoteID), "created": .string(created.iso8601),
        ]
        if encrypted { o["encrypted"] = .bool(true) }
        return .object(o)
    }

    init(remoteID: String, created: Timestamp, encrypted: Bool = false) {
        format = encrypted ? Self.encryptedFormat : Self.currentFormat
        self.remoteID = remoteID
        self.created = created
        self.encrypted = encrypted
    }

    init(bytes: [UInt8], location: String) throws(AISyncError) {
        let bad = AISyncError(
            .damagedData, "\(location)/aisync.json is not a valid remote manifest",
            hint: "Check the URL; it must point at a sync remote or an empty folder")
        guard let value = try? JSONParser.parse(bytes) else { throw bad }
        if let f = value["format"]?.intValue, f > Self.encryptedFormat {
            throw AISyncError(
                .configuration,
                "\(location) is remote format \(f); this version understands formats up to \(Self.encryptedFormat)",
                hint: "Upgrade to a newer version", remedy: .upgrade)
        }
        guard let f = value["format"]?.intValue, f >= 1, let id = value["remote"]?.stringValue, DeviceID(id) != nil,
            let createdText = value["created"]?.stringValue, let created = Timestamp(iso8601: createdText)
        else { throw bad }
        format = f
        remoteID = id
        self.created = created
        encrypted = value["encrypted"]?.boolValue ?? false
        guard encrypted == (f == Self.encryptedFormat) else { throw bad }
    }
}

/// `heads/<device>.json`: written only by that device; names its last segment.
struct DeviceHead: Sendable, Equatable {
    var device: DeviceID
    var name: String
    /// Number of the device's last segment (segments are 1...seq).
    var seq: Int64
    var updated: Timestamp
    var remoteID: String
    /// Devices this device knows on the remote, so servers that cannot list still let
    /// devices find each other.
    var devices: [DeviceID]
    /// The device's latest snapshot, if it wrote one (`aisync compact`).
    var snapshot: SnapshotInfo?

    var json: JSONValue {
        var o: JSONObject = [
            "format": .int(1), "device": .string(device.rawValue), "name": .string(name), "seq": .int(seq),
            "updated": .string(updated.iso8601), "remote": .string(remoteID),
            "devices": .array(devices.sorted().map { .string($0.rawValue) }),
        ]
        o.setIfPresent("snapshot", snapshot?.json)
        return .object(o)
    }

    init(
        device: DeviceID, name: String, seq: Int64, updated: Timestamp, remoteID: String, devices: [DeviceID],
        snapshot: SnapshotInfo? = nil
    ) {
        self.device = device
        self.name = name
        self.seq = seq
        self.updated = updated
        self.remoteID = remoteID
        self.devices = devices
        self.snapshot = snapshot
    }

    init(bytes: [UInt8], path: String, expected: DeviceID) throws(AISyncError) {
        func bad(_ why: String) -> AISyncError {
            AISyncError(
                .damagedData, "remote head \(path) is invalid: \(why)",
                hint: "The device that wrote it should push again")
        }
        guard let value = try? JSONParser.parse(bytes) else { throw bad("not JSON") }
        var r: JSONObjectReader
        do { r = try JSONObjectReader(value, context: path) } catch { throw bad("not an object") }
        do throws(AISyncError) {
            guard try r.int("format") == 1 else { throw bad("unknown format") }
            guard let d = DeviceID(try r.string("device")), d == expected else { throw bad("it names another device") }
            device = d
            name = String(try r.string("name").prefix(200))
            seq = try r.int("seq")
            guard seq >= 0 else { throw bad("negative seq") }
            updated = try r.time("updated")
            remoteID = try r.string("remote")
            var devices: [DeviceID] = []
            for item in try r.array("devices") {
                guard let text = item.stringValue, let id = DeviceID(text) else {
                    throw bad("invalid device id in devices")
                }
                devices.append(id)
            }
            self.devices = devices
            snapshot = try r.optionalValue("snapshot").map { (v: JSONValue) throws(AISyncError) -> SnapshotInfo in
                try SnapshotInfo(json: v, context: path)
            }
            try r.finish()
        } catch {
            throw error.message.hasPrefix("remote head") ? error : bad(error.message)
        }
    }
}

/// `devices.json`: every device that ever pushed, for servers that cannot list `heads/`.
/// Several writers: updated read-merge-write and verified by re-reading (nginx ignores If-Match).
struct DevicesIndex: Sendable, Equatable {
    var devices: [DeviceID: String]

    var json: JSONValue {
        .object([
            "format": .int(1),
            "devices": .object(JSONObject(uniqueKeysWithValues: devices.map { ($0.key.rawValue, .string($0.value)) })),
        ])
    }

    init(devices: [DeviceID: String] = [:]) { self.devices = devices }

    init(bytes: [UInt8], path: String) throws(AISyncError) {
        let bad = AISyncError(
            .damagedData, "remote device index \(path) is invalid",
            hint: "Delete it on the server; devices re-register on their next push")
        guard let value = try? JSONParser.parse(bytes), value["format"]?.intValue == 1,
            let members = value["devices"]?.objectValue
        else { throw bad }
        var devices: [DeviceID: String] = [:]
        for (key, name) in members {
            guard let id = DeviceID(key), let n = name.stringValue else { throw bad }
            devices[id] = String(n.prefix(200))
        }
        self.devices = devices
    }
}

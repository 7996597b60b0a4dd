/// `config.json`: who this device is and which remotes it knows. Never holds secrets.
public struct StoreConfig: Hashable, Sendable {
    /// The newest store format this build understands.
    public static let currentFormat: Int64 = 1

    public struct Remote: Hashable, Sendable {
        public var name: String
        public var url: String
        public var type: String
    }

    public var format: Int64
    public var deviceID: DeviceID
    public var deviceName: String
    public var created: Timestamp
    public var remotes: [Remote]

    var json: JSONValue {
        .object([
            "format": .int(format),
            "device": .object(["id": .string(deviceID.rawValue), "name": .string(deviceName)]),
            "created": .string(created.iso8601),
            "remotes": .array(remotes.map { .object(["name": .string($0.name), "url": .string($0.url), "type": .string($0.type)]) }),
        ])
    }

    init(format: Int64 = currentFormat, deviceID: DeviceID, deviceName: String, created: Timestamp, remotes: [Remote] = []) {
        self.format = format; self.deviceID = deviceID; self.deviceName = deviceName; self.created = created; self.remotes = remotes
    }

    init(bytes: [UInt8], path: String) throws(AISyncError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw AISyncError(.damagedData, "\(path) is not valid JSON", hint: "Restore it from a backup, or move it away and run `aisync init` again", cause: error.description)
        }
        // The format is checked before anything else, so a newer store gets "upgrade", not "damaged".
        if let format = value["format"]?.intValue, format > Self.currentFormat {
            throw AISyncError(.configuration, "\(path) is store format \(format), but this aisync understands only format \(Self.currentFormat)",
                              hint: "Upgrade aisync to open this store")
        }
        do throws(AISyncError) {
            var r = try JSONObjectReader(value, context: path)
            format = try r.int("format")
            guard format >= 1 else { throw AISyncError.damaged("\(path): format must be ≥ 1") }
            var d = try JSONObjectReader(r.optionalValue("device") ?? .null, context: "\(path) device")
            let idText = try d.string("id")
            guard let id = DeviceID(idText) else { throw AISyncError.damaged("\(path): device id is not 32 lowercase hex characters") }
            deviceID = id
            deviceName = try d.string("name")
            try d.finish()
            created = try r.time("created")
            var remotes: [Remote] = []
            for item in try r.array("remotes") {
                var x = try JSONObjectReader(item, context: "\(path) remote")
                remotes.append(Remote(name: try x.string("name"), url: try x.string("url"), type: try x.string("type")))
                try x.finish()
            }
            self.remotes = remotes
            try r.finish()
        } catch {
            throw AISyncError(.damagedData, error.message, hint: "Fix or restore \(path)")
        }
    }
}

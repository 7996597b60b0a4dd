import AISyncCore

extension Store.Status {
    /// The status document (Schemas/status-output.schema.json): `{store, device: {id, name},
    /// records: {kind: count}, deleted, conflicts, objects, bytes, journal: {lines, bytes},
    /// remotes: [{name, url, type}], imagesNotDownloaded, private, exposure?}`.
    public var json: JSONValue {
        let counts = JSONObject(uniqueKeysWithValues: records.map { ($0.key.rawValue, JSONValue.int(Int64($0.value))) })
        var document: JSONObject = [
            "store": .string(root),
            "device": .object(["id": .string(device.rawValue), "name": .string(deviceName)]),
            "records": .object(counts),
            "deleted": .int(Int64(deleted)),
            "conflicts": .int(Int64(conflicts)),
            "objects": .int(Int64(objects)),
            "bytes": .int(bytes),
            "journal": .object(["lines": .int(Int64(journalLines)), "bytes": .int(journalBytes)]),
            "remotes": .array(
                remotes.map { .object(["name": .string($0.name), "url": .string($0.url), "type": .string($0.type)]) }),
            "imagesNotDownloaded": .int(Int64(imagesNotDownloaded)),
            "private": .bool(exposure == nil),
        ]
        document.setIfPresent("exposure", exposure?.json)
        return .object(document)
    }
}

extension Store.Exposure {
    /// `{count, widest, mode, access}`: `mode` in octal (`"0755"`), `access` what it lets
    /// other accounts do (`read`, `written`, `read and written`, `entered`).
    public var json: JSONValue {
        .object([
            "count": .int(Int64(count)), "widest": .string(widest), "mode": .string(Self.octal(mode)),
            "access": .string(access),
        ])
    }
}

extension Store.Conflict {
    /// One record of the conflicts document (Schemas/conflicts-output.schema.json): `{id, kind,
    /// title, versions: [{version, time, deleted, winner, device, deviceName?}], fields:
    /// [{field, values: [{version, time, winner, removed, value?, device, deviceName?}]}]}`.
    public func json(deviceNames: [DeviceID: String]) -> JSONValue {
        func device(_ v: Version, into o: inout JSONObject) {
            o["device"] = .string(v.device.rawValue)
            o.setIfPresent("deviceName", deviceNames[v.device].map(JSONValue.string))
        }
        return .object([
            "id": .string(id.rawValue), "kind": .string(kind.rawValue), "title": .string(title),
            "versions": .array(
                versions.map { cv in
                    var o: JSONObject = [
                        "version": .string(cv.version.id.hex), "time": .string(cv.version.time.timestamp.iso8601),
                        "deleted": .bool(cv.version.isDeleted), "winner": .bool(cv.winner),
                    ]
                    device(cv.version, into: &o)
                    return .object(o)
                }),
            "fields": .array(
                fields.map { f in
                    .object([
                        "field": .string(f.field),
                        "values": .array(
                            f.values.map { cv in
                                var o: JSONObject = [
                                    "version": .string(cv.version.id.hex),
                                    "time": .string(cv.version.time.timestamp.iso8601),
                                    "winner": .bool(cv.winner), "removed": .bool(cv.value == nil),
                                ]
                                o.setIfPresent("value", cv.value)
                                device(cv.version, into: &o)
                                return .object(o)
                            }),
                    ])
                }),
        ])
    }

    /// The conflicts document (Schemas/conflicts-output.schema.json): the records in the order
    /// given.
    public static func listJSON(_ conflicts: some Sequence<Store.Conflict>, deviceNames: [DeviceID: String])
        -> JSONValue
    {
        .array(conflicts.map { $0.json(deviceNames: deviceNames) })
    }
}

extension Store.GarbageReport {
    /// The gc document: `{objects: [sha256], bytes, leftovers: [path], dryRun}`.
    public var json: JSONValue {
        .object([
            "objects": .array(objects.map { .string($0.hex) }), "bytes": .int(bytes),
            "leftovers": .array(leftovers.map { .string($0) }), "dryRun": .bool(dryRun),
        ])
    }
}

extension StoreConfig {
    /// The remote list document: `[{name, url, type, encrypted}]` (plus an S3 remote's
    /// `endpoint` and `region` when it has them), in the configuration's order.
    public var remotesJSON: JSONValue {
        .array(
            remotes.map {
                var o: JSONObject = [
                    "name": .string($0.name), "url": .string($0.url), "type": .string($0.type),
                    "encrypted": .bool($0.encrypted),
                ]
                if let endpoint = $0.endpoint { o["endpoint"] = .string(endpoint) }
                if let region = $0.region { o["region"] = .string(region) }
                if $0.hasOwnTrust {
                    o["trust"] = .object([
                        "certificates": .int(Int64($0.certificateCount)), "pins": .array($0.pins.map(JSONValue.string)),
                    ])
                }
                return .object(o)
            })
    }
}

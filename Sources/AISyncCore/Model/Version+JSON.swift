extension Version {
    /// One entry of the log document (Schemas/log-output.schema.json): `{version, record, kind,
    /// device, deviceName?, time, deleted, action, summary}`; `deviceNames` gives the names of
    /// the devices known.
    public func json(deviceNames: [DeviceID: String]) -> JSONValue {
        var o: JSONObject = [
            "version": .string(id.hex), "record": .string(record.rawValue), "kind": .string(kind.rawValue),
            "device": .string(device.rawValue), "time": .string(time.timestamp.iso8601),
            "deleted": .bool(isDeleted), "action": .string(action.rawValue), "summary": .string(changeSummary),
        ]
        o.setIfPresent("deviceName", deviceNames[device].map(JSONValue.string))
        return .object(o)
    }

    /// The log document (Schemas/log-output.schema.json): the versions in the order given.
    public static func logJSON(_ versions: some Sequence<Version>, deviceNames: [DeviceID: String]) -> JSONValue {
        .array(versions.map { $0.json(deviceNames: deviceNames) })
    }
}

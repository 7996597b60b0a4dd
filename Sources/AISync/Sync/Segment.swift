/// A segment: an immutable batch of versions with their record bodies inline (design §4).
///
/// Format (`segments/<device>/<seq>.seg`, JSON lines, canonical): a header line
/// `{"count":N,"device":"…","format":1,"remote":"…","seq":N}`, then N lines
/// `{"body":{…}|null,"version":{…journal line…}}`. Bodies travel inline so that pulling 10,000
/// chats is one request, not 10,000.
struct Segment: Sendable {
    struct Entry: Sendable {
        var version: Version
        /// Canonical body bytes (nil for a tombstone).
        var body: [UInt8]?
    }

    var device: DeviceID
    var seq: Int64
    var remoteID: String
    var entries: [Entry]

    /// Pushes cut segments at about this size, so no file gets huge.
    static let targetBytes = 4 << 20
    static let maxEntries = 20_000

    func encoded() -> [UInt8] {
        var out = JSONValue.object([
            "format": .int(1), "device": .string(device.rawValue), "seq": .int(seq),
            "remote": .string(remoteID), "count": .int(Int64(entries.count)),
        ]).canonicalBytes
        out.append(10)
        for e in entries {
            out.append(contentsOf: "{\"body\":".utf8)
            if let body = e.body { out.append(contentsOf: body) } else { out.append(contentsOf: "null".utf8) }
            out.append(contentsOf: ",\"version\":".utf8)
            out.append(contentsOf: e.version.json.canonicalBytes)
            out.append(contentsOf: "}\n".utf8)
        }
        return out
    }

    /// Parses and verifies a whole segment: header, every version id, every body's hash and
    /// schema. Any failure rejects the segment whole, naming `path`.
    static func decode(_ bytes: [UInt8], path: String, device: DeviceID, seq: Int64, remoteID: String) throws(AISyncError) -> Segment {
        func bad(_ why: String) -> AISyncError {
            AISyncError(.damagedData, "remote segment \(path) is invalid: \(why)", hint: "Nothing from it was applied; the device that wrote it should push again")
        }
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
        guard lines.last?.isEmpty == true else { throw bad("it does not end with a newline (truncated?)") }
        lines.removeLast()
        guard let headerLine = lines.first else { throw bad("it is empty") }
        let header: JSONValue
        do { header = try JSONParser.parse(headerLine) } catch { throw bad("header is not JSON (\(error))") }
        guard header["format"]?.intValue == 1 else { throw bad("unknown segment format (upgrade aisync?)") }
        guard header["device"]?.stringValue == device.rawValue, header["seq"]?.intValue == seq else { throw bad("header names another device or sequence number") }
        guard header["remote"]?.stringValue == remoteID else { throw bad("it belongs to another remote") }
        guard let count = header["count"]?.intValue, count == lines.count - 1 else { throw bad("header count does not match its lines") }
        var entries: [Entry] = []
        entries.reserveCapacity(Int(count))
        for (n, line) in lines.dropFirst().enumerated() {
            do {
                let value = try JSONParser.parse(line)
                guard case .object(let members) = value, members.count == 2, let v = members["version"], let b = members["body"] else {
                    throw AISyncError.damaged("entry must have exactly \"version\" and \"body\"")
                }
                let version = try Version(json: v)
                var body: [UInt8]?
                if b != .null {
                    let canonical = b.canonicalBytes
                    guard SHA256.hash(canonical) == version.body else { throw AISyncError.damaged("body does not match the version's body hash") }
                    _ = try RecordBody(json: b, expected: version.kind)
                    body = canonical
                } else if !version.isDeleted {
                    throw AISyncError.damaged("body is missing")
                }
                entries.append(Entry(version: version, body: body))
            } catch let error as AISyncError {
                throw bad("line \(n + 2): \(error.message)")
            } catch {
                throw bad("line \(n + 2): \(error)")
            }
        }
        return Segment(device: device, seq: seq, remoteID: remoteID, entries: entries)
    }
}

/// A segment: an immutable batch of versions with everything they need inline (docs/DESIGN.md §5.1).
///
/// Format 2 (`segments/<device>/<seq>.seg`, JSON lines, canonical): a header line
/// `{"count":N,"device":"…","format":2,"remote":"…","seq":N}`, then N lines
/// `{"objects":{sha256: value…},"version":{…journal line…}}`, `objects` holding the values
/// the version keeps in objects (large ones; the whole body of an aisync 1 version). Pulling
/// 10,000 chats is one request, not 10,000, and adding a message pushes only that message.
/// Format 1 (aisync 1: `{"body":…,"version":…}`) is still read.
package struct Segment: Sendable {
    package struct Entry: Sendable {
        package var version: Version
        /// Canonical bytes of every object the version refers to, by sha256.
        package var objects: [SHA256Digest: [UInt8]] = [:]
        /// The version's journal line when pushing (written as is instead of encoded again).
        package var line: [UInt8]? = nil

        package init(version: Version, objects: [SHA256Digest: [UInt8]] = [:], line: [UInt8]? = nil) {
            self.version = version
            self.objects = objects
            self.line = line
        }
    }

    package static let currentFormat: Int64 = 2

    package var device: DeviceID
    package var seq: Int64
    package var remoteID: String
    package var entries: [Entry]

    package init(device: DeviceID, seq: Int64, remoteID: String, entries: [Entry]) {
        self.device = device
        self.seq = seq
        self.remoteID = remoteID
        self.entries = entries
    }

    /// Pushes cut segments at about this size, so no file gets huge.
    package static let targetBytes = 4 << 20
    package static let maxEntries = 20_000
    /// A header holds five short fields.
    static let maxHeaderBytes = 4096

    package func encoded() -> [UInt8] {
        var out = Self.header(device: device, seq: seq, remoteID: remoteID, count: entries.count)
        // Sized once: appending into a growing array copied a 4 MB segment into 8 MB.
        out.reserveCapacity(
            out.count
                + entries.reduce(0) { sum, e in
                    sum + 32 + (e.line?.count ?? 512) + e.objects.values.reduce(0) { $0 + $1.count + 70 }
                })
        for e in entries {
            Self.appendEntry(objects: e.objects, line: (e.line ?? e.version.json.canonicalBytes)[...], to: &out)
        }
        return out
    }

    /// A segment's header line (with its newline), for `count` entries: a push appends the
    /// entry lines to it one version at a time.
    package static func header(device: DeviceID, seq: Int64, remoteID: String, count: Int) -> [UInt8] {
        JSONValue.object([
            "format": .int(Self.currentFormat), "device": .string(device.rawValue), "seq": .int(seq),
            "remote": .string(remoteID), "count": .int(Int64(count)),
        ]).canonicalBytes + [10]
    }

    /// One entry line: the version's objects (sorted by digest) and its journal line as is.
    package static func appendEntry(objects: [SHA256Digest: [UInt8]], line: ArraySlice<UInt8>, to out: inout [UInt8]) {
        out.append(contentsOf: "{\"objects\":{".utf8)
        for (n, (digest, bytes)) in objects.sorted(by: { $0.key.hex < $1.key.hex }).enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "\"\(digest.hex)\":".utf8)
            out.append(contentsOf: bytes)
        }
        out.append(contentsOf: "},\"version\":".utf8)
        out.append(contentsOf: line)
        out.append(contentsOf: "}\n".utf8)
    }

    /// Parses and verifies a whole segment held in memory; see ``decode(_:path:device:seq:remoteID:maxLineBytes:)``.
    package static func decode(_ bytes: [UInt8], path: String, device: DeviceID, seq: Int64, remoteID: String)
        throws(AISyncError) -> Segment
    {
        var lines = SegmentBytes(bytes)
        return try decode(&lines, path: path, device: device, seq: seq, remoteID: remoteID, maxLineBytes: bytes.count)
    }

    /// Parses and verifies a segment a line at a time: header, every version id, every
    /// object's hash and schema. Any failure rejects the segment whole, naming `path`.
    ///
    /// Lines come from `lines` one by one (a file is read in pieces), so memory is the
    /// entries plus one line, and cheap checks come before any parse: the header must be a
    /// short line and every entry a JSON object, so a 63 MB line of one string is refused
    /// after reading 4 KiB of it.
    package static func decode(
        _ lines: inout some SegmentLines, path: String, device: DeviceID, seq: Int64, remoteID: String,
        maxLineBytes: Int
    ) throws(AISyncError) -> Segment {
        let header = try decodeHeader(&lines, path: path, device: device, seq: seq, remoteID: remoteID)
        let entries: [Entry]
        do {
            entries = try decodeEntries(&lines, header: header, maxLineBytes: maxLineBytes)
        } catch {
            throw error.error(path, lineBase: 2)
        }
        guard Int64(entries.count) == header.count else { throw invalid(path, countMismatch) }
        return Segment(device: device, seq: seq, remoteID: remoteID, entries: entries)
    }

    /// What a segment's header says, once checked.
    package struct Header: Sendable {
        package var format: Int64
        /// How many entry lines follow.
        package var count: Int64
    }

    /// Why a run of entry lines was refused: at which of them (0 is the run's first), whether
    /// on reading it (too long, cut short, a read error) or on what it says, and why.
    package struct EntryFailure: Error {
        /// The line of the run where the refusal came.
        package var at: Int
        /// On reading the line, before its content was looked at.
        package var onReading: Bool
        /// Said after "line N" when `numbered`, else alone.
        package var why: String
        package var numbered: Bool
        /// The error reading the lines, passed on as it is.
        package var reading: AISyncError?

        package init(at: Int, onReading: Bool, why: String = "", numbered: Bool = true, reading: AISyncError? = nil) {
            (self.at, self.onReading, self.why, self.numbered, self.reading) = (at, onReading, why, numbered, reading)
        }

        /// The error for segment `path`, the run's first line being line `lineBase` of it.
        package func error(_ path: String, lineBase: Int) -> AISyncError {
            if let reading { return reading }
            return invalid(path, numbered ? "line \(at + lineBase)\(why)" : why)
        }
    }

    package static let countMismatch = "header count does not match its lines"

    /// The error for segment `path` refused for `why`.
    package static func invalid(_ path: String, _ why: String) -> AISyncError {
        AISyncError(
            .damagedData, "remote segment \(path) is invalid: \(why)",
            hint: "Nothing from it was applied; the device that wrote it should push again")
    }

    /// Reads and checks a segment's first line: its format, device, sequence number, remote
    /// and entry count.
    package static func decodeHeader(
        _ lines: inout some SegmentLines, path: String, device: DeviceID, seq: Int64, remoteID: String
    ) throws(AISyncError) -> Header {
        func bad(_ why: String) -> AISyncError { invalid(path, why) }
        let headerLine: ArraySlice<UInt8>
        switch try lines.next(maxBytes: Self.maxHeaderBytes) {
        case .line(let line): headerLine = line
        case .end: throw bad("it is empty")
        case .tooLong: throw bad("its header line is longer than \(Self.maxHeaderBytes) bytes")
        case .unterminated: throw bad("it does not end with a newline (truncated?)")
        }
        let header: JSONValue
        do { header = try JSONParser.parse(headerLine) } catch { throw bad("header is not JSON (\(error))") }
        guard let format = header["format"]?.intValue else { throw bad("its header has no format number") }
        guard format == 1 || format == 2 else {
            throw AISyncError(
                .configuration, "remote segment \(path) is in a format this version does not know",
                hint: "Upgrade to a newer version", remedy: .upgrade)
        }
        guard header["device"]?.stringValue == device.rawValue, header["seq"]?.intValue == seq else {
            throw bad("header names another device or sequence number")
        }
        guard header["remote"]?.stringValue == remoteID else { throw bad("it belongs to another remote") }
        guard let count = header["count"]?.intValue, count >= 0 else { throw bad(countMismatch) }
        return Header(format: format, count: count)
    }

    /// Reads and verifies entry lines until the end of `lines`: a segment's after its header,
    /// refused past `header.count` of them, or (`counted: false`) one stretch of them whose
    /// place in the segment is not known yet, with the count left to the caller.
    /// `stopsWhenCancelled`: the task's cancellation is looked at every 64 lines (a half
    /// read beside another that was refused stops early).
    package static func decodeEntries(
        _ lines: inout some SegmentLines, header: Header, maxLineBytes: Int, counted: Bool = true,
        reserve: Int? = nil, stopsWhenCancelled: Bool = false
    ) throws(EntryFailure) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(reserve ?? Int(min(header.count, Int64(Self.maxEntries))))
        var n = 0
        while true {
            if stopsWhenCancelled, n & 63 == 0, Task.isCancelled {
                throw EntryFailure(at: n, onReading: true, reading: .cancelled)
            }
            let line: ArraySlice<UInt8>
            do {
                switch try lines.next(maxBytes: maxLineBytes) {
                case .line(let l): line = l
                case .end: return entries
                case .tooLong: throw EntryFailure(at: n, onReading: true, why: " is longer than \(maxLineBytes) bytes")
                case .unterminated:
                    throw EntryFailure(
                        at: n, onReading: true, why: "it does not end with a newline (truncated?)", numbered: false)
                }
            } catch let error as EntryFailure {
                throw error
            } catch let error as AISyncError {
                throw EntryFailure(at: n, onReading: true, reading: error)
            } catch {
                throw EntryFailure(at: n, onReading: true, why: "\(error)", numbered: false)
            }
            guard !counted || Int64(n) < header.count else {
                throw EntryFailure(at: n, onReading: false, why: countMismatch, numbered: false)
            }
            guard line.first == UInt8(ascii: "{") else {
                throw EntryFailure(at: n, onReading: false, why: " is not a JSON object")
            }
            if header.format == 2, let fast = Self.plainEntry(line) {
                entries.append(fast)
                n += 1
                continue
            }
            do {
                let value = try JSONParser.parse(line)
                entries.append(header.format == 1 ? try legacyEntry(value) : try entry(value))
            } catch let error as AISyncError {
                throw EntryFailure(at: n, onReading: false, why: ": \(error.message)")
            } catch {
                throw EntryFailure(at: n, onReading: false, why: ": \(error)")
            }
            n += 1
        }
    }

    /// The start of an entry whose version refers to no object: most of them.
    private static let plainEntryPrefix = Array(#"{"objects":{},"version":"#.utf8)

    /// A format 2 entry read without a JSON tree: `{"objects":{},"version":LINE}` where LINE is
    /// a journal line in canonical form whose id verifies (``Version/verifiedCanonical(_:)``)
    /// and that refers to no object; the entry keeps LINE to be journaled as is. Anything else
    /// is nil and takes ``entry(_:)``, which accepts a superset and words every error.
    static func plainEntry(_ line: ArraySlice<UInt8>) -> Entry? {
        let prefix = plainEntryPrefix
        guard line.count > prefix.count + 1, line.last == UInt8(ascii: "}"),
            line.starts(with: prefix)
        else { return nil }
        let inner = line[(line.startIndex + prefix.count)..<(line.endIndex - 1)]
        guard let version = Version.verifiedCanonical(inner), version.objectReferences.isEmpty else { return nil }
        return Entry(version: version, line: Array(inner))
    }

    /// A format 2 entry: every object the version names is there, hashes right, and fits the
    /// field it is a value of; nothing else is there.
    static func entry(_ value: JSONValue) throws(AISyncError) -> Entry {
        guard case .object(let members) = value, members.count == 2, let v = members["version"],
            case .object(let objects)? = members["objects"]
        else {
            throw AISyncError.damaged("entry must have exactly \"objects\" and \"version\"")
        }
        let version = try Version(json: v)
        var entry = Entry(version: version)
        for (key, object) in objects {
            let bytes = object.canonicalBytes
            guard let digest = SHA256Digest(hex: key), SHA256.hash(bytes) == digest else {
                throw AISyncError.damaged("object \(key.prefix(64)) does not match its sha256")
            }
            entry.objects[digest] = bytes
        }
        guard Set(entry.objects.keys) == Set(version.objectReferences) else {
            throw AISyncError.damaged("objects do not match what the version refers to")
        }
        switch version.payload {
        case .legacy(let body?):
            _ = try RecordBody(json: objects[body.hex]!, expected: version.kind)
        case .legacy(nil):
            break
        case .operations(let ops):
            for op in ops {
                guard let d = op.value?.objectDigest, let object = objects[d.hex] else { continue }
                try RecordSchema.validate(object, field: op.field, element: op.element != nil, kind: version.kind)
            }
        }
        return entry
    }

    /// A format 1 entry (aisync 1): `{"body":…|null,"version":…}`.
    private static func legacyEntry(_ value: JSONValue) throws(AISyncError) -> Entry {
        guard case .object(let members) = value, members.count == 2, let v = members["version"], let b = members["body"]
        else {
            throw AISyncError.damaged("entry must have exactly \"version\" and \"body\"")
        }
        let version = try Version(json: v)
        guard case .legacy(let digest) = version.payload else {
            throw AISyncError.damaged("a format 1 segment holds a v2 version")
        }
        var entry = Entry(version: version)
        if b != .null {
            let canonical = b.canonicalBytes
            guard let digest, SHA256.hash(canonical) == digest else {
                throw AISyncError.damaged("body does not match the version's body hash")
            }
            _ = try RecordBody(json: b, expected: version.kind)
            entry.objects[digest] = canonical
        } else if digest != nil {
            throw AISyncError.damaged("body is missing")
        }
        return entry
    }
}

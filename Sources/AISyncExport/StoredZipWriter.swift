import AISyncCore

/// Builds a zip archive whose entries are stored, not compressed, as EPUB's `mimetype` must
/// be (and pictures gain nothing from deflate anyway). Entries keep the order they are added in.
package struct StoredZipWriter: Sendable {
    private struct Entry: Sendable {
        var name: [UInt8]
        var crc: UInt32
        var size: UInt32
        var offset: UInt32
    }

    private var output: [UInt8] = []
    private var entries: [Entry] = []
    private let dosTime: UInt16
    private let dosDate: UInt16

    /// An empty archive whose entries are all dated `modified` (UTC, to the 2 seconds zip keeps).
    package init(modified: Timestamp) {
        (dosDate, dosTime) = Self.dosDateTime(modified)
    }

    /// Appends one stored entry named `name` (a relative path with `/` separators).
    package mutating func add(_ name: String, _ bytes: [UInt8]) throws(AISyncError) {
        guard entries.count < Int(UInt16.max), bytes.count < Int(UInt32.max),
            output.count + bytes.count < Int(UInt32.max) - (1 << 20)
        else {
            throw AISyncError(
                .other, "the export is larger than a plain zip file can hold (4 GB, 65,535 files)",
                hint: "Export fewer or smaller pictures")
        }
        let entry = Entry(
            name: Array(name.utf8), crc: CRC32.checksum(bytes), size: UInt32(bytes.count), offset: UInt32(output.count))
        output.append32(0x0403_4B50)
        output.append(contentsOf: commonFields(entry))
        output.append(contentsOf: entry.name)
        output.append(contentsOf: bytes)
        entries.append(entry)
    }

    /// The archive's bytes: the entries, then the central directory and its end record.
    package func finish() -> [UInt8] {
        var out = output
        let directoryStart = UInt32(out.count)
        for e in entries {
            out.append32(0x0201_4B50)
            out.append16(20)  // made by: version 2.0, MS-DOS attributes
            out.append(contentsOf: commonFields(e))
            out.append16(0)
            out.append16(0)
            out.append16(0)  // comment length, disk, internal attributes
            out.append32(0)  // external attributes
            out.append32(e.offset)
            out.append(contentsOf: e.name)
        }
        let directorySize = UInt32(out.count) - directoryStart
        out.append32(0x0605_4B50)
        out.append16(0)
        out.append16(0)
        out.append16(UInt16(entries.count))
        out.append16(UInt16(entries.count))
        out.append32(directorySize)
        out.append32(directoryStart)
        out.append16(0)  // comment length
        return out
    }

    /// The fields local headers and central directory entries share, from "version needed"
    /// to the extra field length.
    private func commonFields(_ e: Entry) -> [UInt8] {
        var output: [UInt8] = []
        output.append16(10)  // version needed: 1.0, stored entries
        output.append16(0x0800)  // flags: names are UTF-8
        output.append16(0)  // method: stored
        output.append16(dosTime)
        output.append16(dosDate)
        output.append32(e.crc)
        output.append32(e.size)
        output.append32(e.size)
        output.append16(UInt16(e.name.count))
        output.append16(0)
        return output
    }

    /// MS-DOS date and time fields for a UTC instant, clamped to the years zip can express.
    static func dosDateTime(_ t: Timestamp) -> (date: UInt16, time: UInt16) {
        let text = Array(t.iso8601.utf8)  // YYYY-MM-DDTHH:MM:SS.mmmZ
        func number(_ from: Int, _ count: Int) -> Int {
            text[from..<(from + count)].reduce(0) { $0 * 10 + Int($1) - 48 }
        }
        guard text.count == 24, (1980...2107).contains(number(0, 4)) else { return (0x21, 0) }  // 1980-01-01 00:00
        let date = (number(0, 4) - 1980) << 9 | number(5, 2) << 5 | number(8, 2)
        let time = number(11, 2) << 11 | number(14, 2) << 5 | number(17, 2) / 2
        return (UInt16(date), UInt16(time))
    }
}

extension [UInt8] {
    mutating func append16(_ v: UInt16) {
        append(UInt8(v & 0xFF))
        append(UInt8(v >> 8))
    }
    mutating func append32(_ v: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((v >> UInt32(shift)) & 0xFF)) }
    }
}

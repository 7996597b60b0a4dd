import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles

/// A segment's lines read from memory and from a file (a MiB at a time) give the same steps,
/// and a line longer than asked for is refused without reading the rest.
@Suite("Segment lines")
struct SegmentLinesTests {
    enum Step: Equatable, CustomStringConvertible {
        case line(Int)
        case end, tooLong, unterminated
        var description: String {
            switch self {
            case .line(let n): "line(\(n))"
            case .end: "end"
            case .tooLong: "tooLong"
            case .unterminated: "unterminated"
            }
        }
    }

    /// Reads `bytes` with `max` per line from both sources, until end or a refusal.
    static func steps(_ bytes: [UInt8], max: Int) throws -> (memory: [Step], file: [Step]) {
        let path = "\(CLIHarness.makeTemporaryDirectory())/lines"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var memory = SegmentBytes(bytes)
        var file = try FileLines(path: path)
        func run(_ source: inout some SegmentLines) throws -> [Step] {
            var out: [Step] = []
            while true {
                switch try source.next(maxBytes: max) {
                case .line(let l):
                    out.append(.line(l.count))
                    #expect(!l.contains(10))
                case .end:
                    out.append(.end)
                    return out
                case .tooLong:
                    out.append(.tooLong)
                    return out
                case .unterminated:
                    out.append(.unterminated)
                    return out
                }
            }
        }
        return (try run(&memory), try run(&file))
    }

    static func bytes(_ lines: [Int], newlineAtEnd: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        for (i, n) in lines.enumerated() {
            out += Array(repeating: UInt8(ascii: "x"), count: n)
            if i < lines.count - 1 || newlineAtEnd { out.append(10) }
        }
        return out
    }

    @Test(
        "lines, empty lines, a missing final newline, lines across MiB reads, a line too long",
        arguments: [
            (bytes([1, 2, 0, 3]), 10, [Step.line(1), .line(2), .line(0), .line(3), .end]),
            (bytes([1, 2], newlineAtEnd: false), 10, [.line(1), .unterminated]),
            ([], 10, [.end]),
            (
                bytes([3 << 20, 5, (1 << 20) - 1, 1 << 20]), 4 << 20,
                [.line(3 << 20), .line(5), .line((1 << 20) - 1), .line(1 << 20), .end]
            ),
            (bytes([5, 3 << 20, 5]), 4096, [.line(5), .tooLong]),
            (bytes([4096, 4097]), 4096, [.line(4096), .tooLong]),
        ] as [([UInt8], Int, [Step])])
    func steps(_ bytes: [UInt8], _ max: Int, _ expected: [Step]) throws {
        let (memory, file) = try Self.steps(bytes, max: max)
        #expect(memory == expected)
        #expect(file == expected)
    }

    @Test("a segment decodes the same from a file as from memory")
    func segmentFromFile() throws {
        let device = DeviceID("0123456789abcdef0123456789abcdef")!
        let versions = (0..<50).map { n in
            Version(
                record: RecordID("chat-\(n)")!, kind: .chat, clock: VectorClock([device: Int64(n + 1)]),
                time: HybridLogicalTime(wall: Int64(n)),
                device: device,
                ops: [.set(field: "title", value: .inline(.string(String(repeating: "t", count: n * 10))))])
        }
        let bytes = Segment(
            device: device, seq: 3, remoteID: "r1", entries: versions.map { Segment.Entry(version: $0) }
        ).encoded()
        let path = "\(CLIHarness.makeTemporaryDirectory())/3.seg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var file = try FileLines(path: path)
        let fromFile = try Segment.decode(
            &file, path: "3.seg", device: device, seq: 3, remoteID: "r1", maxLineBytes: 1 << 20)
        let fromMemory = try Segment.decode(bytes, path: "3.seg", device: device, seq: 3, remoteID: "r1")
        #expect(fromFile.entries.map(\.version) == versions)
        #expect(fromMemory.entries.map(\.version) == versions)
        // One line too many for the header's count, and one too few, are refused.
        var extra = bytes
        extra += bytes.split(separator: 10).last! + [10]
        #expect(throws: AISyncError.self) {
            try Segment.decode(extra, path: "3.seg", device: device, seq: 3, remoteID: "r1")
        }
        let short =
            Array(bytes.split(separator: 10, omittingEmptySubsequences: false).dropLast(2).joined(separator: [10])) + [
                10
            ]
        #expect(throws: AISyncError.self) {
            try Segment.decode(short, path: "3.seg", device: device, seq: 3, remoteID: "r1")
        }
    }
}

/// A DEFLATE (RFC 1951) decoder for the entries of an export's zip, in the manner of zlib's
/// `puff.c`: canonical Huffman codes decoded bit by bit, small and easy to check.
///
/// Hostile input is expected: every read is bounds-checked, codes that are over-subscribed
/// are refused, a distance reaching before the start is refused, and the output may not grow
/// past `limit` bytes (a zip bomb stops there).
enum Inflate {
    /// Why the data could not be decompressed.
    struct Failure: Error, CustomStringConvertible {
        /// What was wrong, e.g. `invalid distance`.
        var description: String
    }

    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
        4097, 6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// The decompressed bytes of a raw DEFLATE stream (no zlib or gzip header).
    static func decompress(_ input: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        var reader = BitReader(bytes: input)
        var out: [UInt8] = []
        var last = false
        while !last {
            last = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0: try stored(&reader, into: &out, limit: limit)
            case 1: try codes(&reader, Huffman.fixedLiterals, Huffman.fixedDistances, into: &out, limit: limit)
            case 2:
                let (literals, distances) = try dynamicTables(&reader)
                try codes(&reader, literals, distances, into: &out, limit: limit)
            default: throw Failure(description: "invalid block type")
            }
        }
        return out
    }

    static func stored(_ reader: inout BitReader, into out: inout [UInt8], limit: Int) throws(Failure) {
        reader.alignToByte()
        let length = try reader.bits(16)
        let complement = try reader.bits(16)
        guard length == ~complement & 0xFFFF else {
            throw Failure(description: "stored block length does not match its complement")
        }
        guard out.count + length <= limit else { throw Failure(description: "larger than \(limit) bytes") }
        for _ in 0..<length { out.append(UInt8(try reader.bits(8))) }
    }

    static func dynamicTables(_ reader: inout BitReader) throws(Failure) -> (Huffman, Huffman) {
        let literalCount = try reader.bits(5) + 257
        let distanceCount = try reader.bits(5) + 1
        let codeCount = try reader.bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw Failure(description: "too many codes") }
        var codeLengths = [Int](repeating: 0, count: 19)
        for n in 0..<codeCount { codeLengths[codeLengthOrder[n]] = try reader.bits(3) }
        let lengthCode = try Huffman(lengths: codeLengths)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try lengthCode.decode(&reader)
            switch symbol {
            case 0...15: lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw Failure(description: "repeat with no previous length") }
                lengths += Array(repeating: previous, count: 3 + (try reader.bits(2)))
            case 17: lengths += Array(repeating: 0, count: 3 + (try reader.bits(3)))
            default: lengths += Array(repeating: 0, count: 11 + (try reader.bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw Failure(description: "too many lengths") }
        guard lengths[256] > 0 else { throw Failure(description: "no end-of-block code") }
        return (
            try Huffman(lengths: Array(lengths[..<literalCount])), try Huffman(lengths: Array(lengths[literalCount...]))
        )
    }

    static func codes(
        _ reader: inout BitReader, _ literals: Huffman, _ distances: Huffman, into out: inout [UInt8], limit: Int
    ) throws(Failure) {
        while true {
            let symbol = try literals.decode(&reader)
            if symbol < 256 {
                guard out.count < limit else { throw Failure(description: "larger than \(limit) bytes") }
                out.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let index = symbol - 257
            guard index < lengthBase.count else { throw Failure(description: "invalid length code") }
            let length = lengthBase[index] + (try reader.bits(lengthExtra[index]))
            let code = try distances.decode(&reader)
            guard code < distanceBase.count else { throw Failure(description: "invalid distance code") }
            let distance = distanceBase[code] + (try reader.bits(distanceExtra[code]))
            guard distance <= out.count else { throw Failure(description: "distance too far back") }
            guard out.count + length <= limit else { throw Failure(description: "larger than \(limit) bytes") }
            let start = out.count - distance
            for n in 0..<length { out.append(out[start + n]) }
        }
    }
}

/// Reads a DEFLATE stream's bits, least significant first.
struct BitReader {
    let bytes: [UInt8]
    var index = 0
    var buffer: UInt64 = 0
    var count = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func bits(_ n: Int) throws(Inflate.Failure) -> Int {
        while count < n {
            guard index < bytes.count else { throw Inflate.Failure(description: "unexpected end of data") }
            buffer |= UInt64(bytes[index]) << UInt64(count)
            index += 1
            count += 8
        }
        let value = Int(buffer & ((1 << UInt64(n)) - 1))
        buffer >>= UInt64(n)
        count -= n
        return value
    }

    mutating func alignToByte() {
        let drop = count % 8
        buffer >>= UInt64(drop)
        count -= drop
    }
}

/// A canonical Huffman code: how many codes of each length, and the symbols in code order.
struct Huffman {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int] = []

    init(lengths: [Int]) throws(Inflate.Failure) {
        for length in lengths { counts[length] += 1 }
        var left = 1
        for length in 1..<16 {
            left = left * 2 - counts[length]
            guard left >= 0 else { throw Inflate.Failure(description: "over-subscribed code") }
        }
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
        symbols = [Int](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length != 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
    }

    func decode(_ reader: inout BitReader) throws(Inflate.Failure) -> Int {
        var code = 0
        var first = 0
        var index = 0
        for length in 1..<16 {
            code |= try reader.bits(1)
            let count = counts[length]
            if code - count < first { return symbols[index + (code - first)] }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw Inflate.Failure(description: "invalid code")
    }

    static let fixedLiterals = try! Huffman(
        lengths: Array(repeating: 8, count: 144) + Array(repeating: 9, count: 112)
            + Array(repeating: 7, count: 24) + Array(repeating: 8, count: 8))
    static let fixedDistances = try! Huffman(lengths: Array(repeating: 5, count: 30))
}

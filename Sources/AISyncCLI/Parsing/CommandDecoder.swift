/// What decoding a command's fields reads: the parsed command line, the default fields (from
/// `init()`), where each argument stands, and the usage line for errors.
struct FieldSource: Sendable {
    var invocation: Invocation
    var defaults: [String: any CommandField]
    var positions: [String: Int]
    var usageLine: String

    /// The input of the field shown as `name`, given `texts`.
    func input(_ name: String, _ texts: [String]) -> FieldInput {
        FieldInput(texts: texts, name: name, command: invocation.command, usageLine: usageLine)
    }
}

/// Decodes a ``ParsableCommand`` from a parsed command line: its synthesized `init(from:)`
/// asks a keyed container for each wrapped field, which decodes from a ``FieldDecoder``.
struct CommandDecoder: Decoder {
    let source: FieldSource
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(FieldContainer<Key>(source: source))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw FieldDecoder.onlyFields(codingPath) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw FieldDecoder.onlyFields(codingPath) }
}

/// The decoder one field's wrapper reads itself from.
struct FieldDecoder: Decoder {
    let source: FieldSource
    let label: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw Self.onlyFields(codingPath)
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Self.onlyFields(codingPath) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Self.onlyFields(codingPath) }

    /// The field's default (its declaration), its property name and the source, for a
    /// wrapper's `init(from:)`.
    static func context<F: CommandField>(_ type: F.Type, _ decoder: any Decoder) throws -> (F, String, FieldSource) {
        guard let decoder = decoder as? FieldDecoder, let field = decoder.source.defaults[decoder.label] as? F else {
            throw onlyFields(decoder.codingPath)
        }
        return (field, decoder.label, decoder.source)
    }

    /// A command's stored properties must all be wrapped fields.
    static func onlyFields(_ path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: path, debugDescription: "a command's stored properties must be @Argument, @Option or @Flag")
        )
    }
}

/// The keyed container of a command: each key is a field's property name.
private struct FieldContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let source: FieldSource
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { source.defaults.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { source.defaults[key.stringValue] != nil }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try T(from: FieldDecoder(source: source, label: key.stringValue))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw FieldDecoder.onlyFields([key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw FieldDecoder.onlyFields([key]) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    { throw FieldDecoder.onlyFields([key]) }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw FieldDecoder.onlyFields([key])
    }
    func superDecoder() throws -> any Decoder { throw FieldDecoder.onlyFields([]) }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw FieldDecoder.onlyFields([key]) }
}

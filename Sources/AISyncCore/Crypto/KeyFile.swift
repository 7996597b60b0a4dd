/// `keys.json` on an encrypted remote: the master key, wrapped once per passphrase slot.
///
/// Each slot holds the master key sealed with XChaCha20-Poly1305 under a key scrypt derives
/// from a passphrase; its salt and cost parameters are stored beside it and authenticated
/// (associated data), so a server cannot lower the cost or move a slot to another remote.
/// Several slots let the passphrase change (`aisync passphrase change`: add a slot, remove
/// the old one) without re-encrypting anything. The file itself is plain JSON: it must be
/// readable before any key is known, and holds nothing usable without a passphrase.
public struct KeyFile: Sendable, Equatable {
    /// One wrapped copy of the master key.
    public struct Slot: Sendable, Equatable {
        /// 8 random hex characters, to name the slot.
        public var id: String
        /// When the slot was added.
        public var created: Timestamp
        /// The scrypt cost (stored, so every device derives the same key).
        public var parameters: Scrypt.Parameters
        var salt: [UInt8]
        var nonce: [UInt8]
        var wrapped: [UInt8]
    }

    /// The remote's id, as in its `aisync.json`.
    public var remoteID: String
    /// The slots, in the order they were added.
    public var slots: [Slot]

    /// The cost new slots use: 64 MiB and well under a second (timed in docs/PERFORMANCE.md),
    /// so every guess at a passphrase costs the same.
    public static let defaultParameters = Scrypt.Parameters(n: 1 << 16, r: 8, p: 3)
    /// Where the file lives on the remote.
    public static let path = "keys.json"

    /// A new key file for a new master key, with one slot for `passphrase`.
    public static func create(
        remoteID: String, passphrase: String, created: Timestamp, parameters: Scrypt.Parameters = defaultParameters,
        random: (Int) -> [UInt8]
    ) -> (file: KeyFile, keys: RemoteKeys) {
        let keys = RemoteKeys(remoteID: remoteID, master: random(32))
        var file = KeyFile(remoteID: remoteID, slots: [])
        file.addSlot(for: keys, passphrase: passphrase, created: created, parameters: parameters, random: random)
        return (file, keys)
    }

    /// Adds a slot that opens `keys` with `passphrase`; returns its id.
    @discardableResult
    public mutating func addSlot(
        for keys: RemoteKeys, passphrase: String, created: Timestamp,
        parameters: Scrypt.Parameters = defaultParameters, random: (Int) -> [UInt8]
    ) -> String {
        let id = Hex.encode(random(4))
        let salt = random(32)
        let nonce = random(XChaChaPoly.nonceBytes)
        var slot = Slot(id: id, created: created, parameters: parameters, salt: salt, nonce: nonce, wrapped: [])
        let wrapping = Self.wrappingKey(passphrase, slot)
        slot.wrapped = XChaChaPoly.seal(keys.master, key: wrapping, nonce: nonce, aad: associatedData(slot))
        slots.append(slot)
        return id
    }

    /// The keys, from the first slot `passphrase` opens; `.wrongPassphrase` when none does.
    /// Costs one scrypt per slot tried.
    public func unlock(passphrase: String) throws(AISyncError) -> (keys: RemoteKeys, slot: String) {
        for slot in slots {
            if let master = XChaChaPoly.open(
                slot.wrapped, key: Self.wrappingKey(passphrase, slot), nonce: slot.nonce, aad: associatedData(slot)),
                master.count == 32
            {
                return (RemoteKeys(remoteID: remoteID, master: master), slot.id)
            }
        }
        throw AISyncError(
            .wrongPassphrase, "the passphrase does not open this remote's key",
            hint: "Check the passphrase; it is the one set when encryption was turned on (or last changed)",
            remedy: .checkPassphrase)
    }

    static func wrappingKey(_ passphrase: String, _ slot: Slot) -> [UInt8] {
        // Parameters were validated when the file was read or the slot made.
        Scrypt.derive(password: Array(passphrase.utf8), salt: slot.salt, parameters: slot.parameters, length: 32) ?? []
    }

    func associatedData(_ slot: Slot) -> [UInt8] {
        let p = slot.parameters
        return Array("aisync-keyslot-1\n\(remoteID)\n\(slot.id)\n\(p.n)\n\(p.r)\n\(p.p)\n\(Hex.encode(slot.salt))".utf8)
    }
}

extension KeyFile {
    /// The file as written to the remote.
    public var json: JSONValue {
        .object([
            "format": .int(1), "remote": .string(remoteID),
            "slots": .array(
                slots.map { slot in
                    .object([
                        "id": .string(slot.id), "created": .string(slot.created.iso8601), "kdf": .string("scrypt"),
                        "n": .int(Int64(slot.parameters.n)), "r": .int(Int64(slot.parameters.r)),
                        "p": .int(Int64(slot.parameters.p)),
                        "salt": .string(Hex.encode(slot.salt)), "nonce": .string(Hex.encode(slot.nonce)),
                        "wrapped": .string(Hex.encode(slot.wrapped)),
                    ])
                }),
        ])
    }

    /// Parses a key file from a server, refusing anything malformed or too costly to try
    /// (scrypt above 256 MiB, more than 16 slots): a hostile server must not make a device
    /// spend minutes or gigabytes on a passphrase.
    public init(bytes: [UInt8], shown: String) throws(AISyncError) {
        func bad(_ why: String) -> AISyncError {
            AISyncError(
                .damagedData, "\(shown) is not a valid key file: \(why)",
                hint: "Restore it from a backup of the server; without it the remote cannot be decrypted")
        }
        guard let value = try? JSONParser.parse(bytes) else { throw bad("not JSON") }
        guard value["format"]?.intValue == 1 else { throw bad("unknown format") }
        guard let remote = value["remote"]?.stringValue, DeviceID(remote) != nil else {
            throw bad("no valid remote id")
        }
        guard let items = value["slots"]?.arrayValue, !items.isEmpty, items.count <= 16 else {
            throw bad("no slots, or more than 16")
        }
        remoteID = remote
        slots = []
        for item in items {
            guard let id = item["id"]?.stringValue, Hex.decode(id, count: 4) != nil,
                let createdText = item["created"]?.stringValue, let created = Timestamp(iso8601: createdText),
                item["kdf"]?.stringValue == "scrypt",
                let n = item["n"]?.intValue, let r = item["r"]?.intValue, let p = item["p"]?.intValue,
                let salt = item["salt"]?.stringValue.flatMap({ Hex.decode($0, count: 32) }),
                let nonce = item["nonce"]?.stringValue.flatMap({ Hex.decode($0, count: XChaChaPoly.nonceBytes) }),
                let wrapped = item["wrapped"]?.stringValue.flatMap({ Hex.decode($0, count: 32 + ChaChaPoly.tagBytes) })
            else {
                throw bad("a slot is malformed")
            }
            let parameters = Scrypt.Parameters(n: Int(clamping: n), r: Int(clamping: r), p: Int(clamping: p))
            guard parameters.isValid, 128 * parameters.r * parameters.n <= 256 << 20, parameters.p <= 4 else {
                throw bad("slot \(id) asks for scrypt costs this version does not spend (N \(n), r \(r), p \(p))")
            }
            slots.append(
                Slot(id: id, created: created, parameters: parameters, salt: salt, nonce: nonce, wrapped: wrapped))
        }
    }
}

extension AISyncError {
    /// What the user can do about a failure, as a value.
    ///
    /// `hint` tells a person in the library's words, which assume no particular front end. An
    /// app that wants its own wording, a button ("Restore", "Add a remote…") or a retry timer
    /// switches on `remedy` instead; the command line maps it to an `aisync …` command. Errors
    /// with no specific remedy have none. New cases may be added: switch with a `default`.
    public enum Remedy: Hashable, Sendable {
        /// The id names no record in this store: pick one from the list of records.
        case listRecords
        /// The record is deleted: restoring it brings it back with everything it held.
        case restoreRecord(RecordID)
        /// The record is in conflict: keep one side to close it.
        case resolveConflict(RecordID)
        /// The version given does not fit (unknown, or it deletes the record): pick another
        /// from the record's history.
        case listVersions(RecordID)
        /// The store has no remote: add one (a WebDAV or plain HTTP URL, or a folder).
        case addRemote
        /// The remote named is unknown, or several exist and none was named: use one of these.
        case chooseRemote([String])
        /// A remote of this name exists already: remove it first to replace it.
        case removeRemote(String)
        /// The remote's URL leads nowhere (404): check it.
        case checkRemoteURL
        /// A transient failure (rate limit, busy or failing server, timeout): try again later;
        /// `retryAfter` says when if the server did.
        case retryLater
        /// Another process holds the lock (on the store or on one remote's sync): wait for it.
        case waitForLock
        /// The server at `host` wants a user name and password, or refused the ones given.
        case provideCredentials(host: String)
        /// Imgur needs a client id or access token, or refused the one given.
        case provideImgurCredential
        /// Data in the store is damaged or missing: check the store (and pull to repair it).
        case checkStore
        /// No store is at the location: create one there, or open another location.
        case initStore
        /// A store exists at the location already: use it, or create the new one elsewhere.
        case useExistingStore
        /// The store's configuration cannot be read: restore it from a backup, or move it away
        /// and create the store again.
        case replaceStoreConfig
        /// The data was written by a newer version of the library: upgrade to read it.
        case upgrade
        /// The field named has no conflict: the record's conflicts show the fields that do.
        case listConflicts(RecordID)
        /// The message id is unknown: the record's messages show the ids it has.
        case showMessages(RecordID)
        /// The id names a record that is not an image: pick one from the list of images.
        case listImages
        /// The destination exists: allow replacing it (a `folder` is written into, replacing
        /// files of the same names), or choose another.
        case allowReplacing(folder: Bool)
        /// The text is no URL a remote can have: give an https:// (WebDAV or plain HTTP)
        /// or file:// one.
        case giveRemoteURL
        /// Plain `http://` is refused off this machine: use https, or allow it on a trusted
        /// network.
        case allowInsecureHTTP
        /// The server is no WebDAV server: add the remote as a plain HTTP one if that is what
        /// it is.
        case addPlainHTTPRemote
        /// A push would delete `count` records on every device: push again allowing mass
        /// deletes if that was meant, else pull from another device first.
        case allowMassDelete(count: Int)
        /// This store directory was copied and both copies push as one device: keep one, and
        /// give a second machine a new store that pulls.
        case separateStore
        /// The remote is encrypted and Imgur pictures are public: allow public pictures, or
        /// keep pictures on the remote.
        case allowPublicImages
        /// A snapshot a head names is missing: its writer should compact the remote again.
        case compactRemote
        /// The remote of this name was reset (its id changed): remove it and add it again if
        /// that was meant.
        case replaceRemote(String)
        /// The remote of this name holds plain data, or is not encrypted yet: encrypt it in
        /// place (or use an empty folder).
        case encryptRemote(String)
        /// The location is no remote yet: nothing to encrypt; add it as an encrypted remote and
        /// push to it.
        case addEncryptedRemote
        /// The remote named is encrypted and needs its passphrase (`new`: the new one, when
        /// changing it).
        case providePassphrase(remote: String, new: Bool)
        /// The passphrase given does not open the remote's key: check it.
        case checkPassphrase
        /// The export's kind could not be told from its files: name its source.
        case nameImportSource
        /// The S3 bucket is in this region, not the one the remote names: give the remote
        /// this region.
        case useRegion(String)
        /// The server's TLS certificate is not trusted: give the remote the certificate (or the
        /// CA that signed it) to trust, or its key to pin.
        case trustServer
        /// The server's TLS key is not the one pinned: find out why before pinning another.
        case checkPinnedKey
    }

    /// No record has this id.
    package static func noRecord(_ id: RecordID) -> AISyncError {
        AISyncError(
            .notFound, "no record \(id)", hint: "See the list of records for the ids in this store",
            remedy: .listRecords)
    }

    /// The record is deleted (`inConflict`: a delete and an edit happened at once).
    package static func recordDeleted(_ id: RecordID, inConflict: Bool) -> AISyncError {
        inConflict
            ? AISyncError(
                .notFound, "record \(id) was deleted", hint: "It is in conflict; keep one side to close it",
                remedy: .resolveConflict(id))
            : AISyncError(
                .notFound, "record \(id) was deleted", hint: "Restore it to bring it back", remedy: .restoreRecord(id))
    }

    /// Another process holds the lock on `what` ("the store /x", "syncing with origin").
    package static func busy(_ what: String) -> AISyncError {
        AISyncError(
            .temporary, "\(what) is busy: another process is using it",
            hint: "Wait for it to finish and try again",
            remedy: .waitForLock)
    }
}

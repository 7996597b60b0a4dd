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
    }

    /// No record has this id.
    package static func noRecord(_ id: RecordID) -> AISyncError {
        AISyncError(.notFound, "no record \(id)", hint: "See the list of records for the ids in this store", remedy: .listRecords)
    }

    /// The record is deleted (`inConflict`: a delete and an edit happened at once).
    package static func recordDeleted(_ id: RecordID, inConflict: Bool) -> AISyncError {
        inConflict
            ? AISyncError(.notFound, "record \(id) was deleted", hint: "It is in conflict; keep one side to close it", remedy: .resolveConflict(id))
            : AISyncError(.notFound, "record \(id) was deleted", hint: "Restore it to bring it back", remedy: .restoreRecord(id))
    }

    /// Another process holds the lock on `what` ("the store /x", "syncing with origin").
    package static func busy(_ what: String) -> AISyncError {
        AISyncError(.temporary, "\(what) is busy: another aisync process is using it", hint: "Wait for it to finish and try again",
                    remedy: .waitForLock)
    }
}

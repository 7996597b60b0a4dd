import AISync

/// The command line's words for a library error: the library's message and cause, with the
/// `aisync …` command that carries out the error's remedy in place of its front-end-neutral
/// hint (presentation only: the remedy itself is the library's decision).
enum ErrorText {
    /// What follows `Error: ` on stderr.
    static func line(_ error: AISyncError) -> String {
        var shown = error
        if let remedy = error.remedy, let hint = hint(for: remedy, libraryHint: error.hint) { shown.hint = hint }
        return shown.description
    }

    /// The hint naming the command to run, or nil to keep the library's (when no command
    /// helps: wait and retry, set an environment variable).
    static func hint(for remedy: AISyncError.Remedy, libraryHint: String?) -> String? {
        switch remedy {
        case .listRecords: "See `aisync list` for the ids in this store"
        case .restoreRecord(let id): "Bring it back with `aisync restore \(id)`"
        case .resolveConflict(let id): "It is in conflict; see `aisync conflicts \(id)`"
        case .listVersions(let id): "Pick a version (6 or more hex characters) from `aisync log \(id)`"
        case .addRemote: "Add one with `aisync remote add NAME URL` (e.g. file:///media/usb/aisync)"
        case .chooseRemote(let names) where names.isEmpty: "Add one with `aisync remote add NAME URL`"
        case .chooseRemote(let names): "Use one of: \(names.joined(separator: ", ")) (see `aisync remote list`)"
        case .removeRemote(let name): "Remove it first with `aisync remote remove \(name)`"
        case .checkRemoteURL: "\(libraryHint ?? "Check the remote's URL"); `aisync remote list` shows it"
        case .checkStore: "Run `aisync fsck`; pull from a remote to restore what is missing or damaged"
        case .retryLater, .waitForLock, .provideCredentials, .provideImgurCredential: nil
        }
    }
}

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
        case .initStore: "Run `aisync init` to create one, or pass --store DIR / set AISYNC_HOME"
        case .useExistingStore: "Use it as it is, or pass --store DIR to create another"
        case .replaceStoreConfig: "Restore it from a backup, or move it away and run `aisync init` again"
        case .listConflicts(let id): "See `aisync conflicts \(id)` for the fields in conflict"
        case .showMessages(let id):
            "Message ids start with m- and are shown by `aisync show \(id)` (`chat say` prints the version, not the message)"
        case .listImages: "See `aisync list --kind image`"
        case .allowReplacing(let folder):
            folder
                ? "Pass --force to write into it (files of the same names are replaced), or choose another path"
                : "Pass --force to replace it, or choose another path"
        case .giveRemoteURL:
            "Use https://host/path (WebDAV), add --plain for a plain HTTP server, or file:///path for a folder"
        case .allowInsecureHTTP: "Use https://, or pass --insecure if this network is trusted"
        case .addPlainHTTPRemote: "If it is a plain HTTP server, add the remote with --plain"
        case .allowMassDelete:
            "If you meant to, push again allowing mass deletes (--allow-mass-delete); if not, pull from another device's remote before pushing"
        case .separateStore:
            "Keep one copy. For a second machine create a new store (`aisync init --store DIR`) and `aisync pull` into it"
        case .allowPublicImages:
            "Pass --public-images to upload them anyway (records stay encrypted), or keep pictures on the remote only"
        case .compactRemote: "Nothing more was applied; the device that wrote it should run `aisync compact` again"
        case .replaceRemote(let name):
            "If it was reset on purpose, remove and re-add the remote: `aisync remote remove \(name)` then `aisync remote add \(name) URL`"
        case .encryptRemote(let name): "Encrypt it in place with `aisync encrypt \(name)`, or use an empty folder"
        case .addEncryptedRemote: "Nothing to encrypt: push to it with the remote added with --encrypt"
        case .providePassphrase(_, let new):
            "Set \(new ? "AISYNC_NEW_PASSPHRASE" : "AISYNC_PASSPHRASE"), or run the command on a terminal to type it"
        case .checkPassphrase:
            "Check AISYNC_PASSPHRASE or type it again; it is the one set when encryption was turned on (or last changed)"
        case .nameImportSource: "Name the source: aisync import chatgpt|claude|storybook|dalle PATH"
        case .useRegion(let region):
            "Add the remote with --region \(region) (`aisync remote remove NAME` first if it is added)"
        case .trustServer:
            "If it is your own server with a private or self-signed certificate, trust it with `aisync remote trust NAME --ca-cert FILE` (that certificate, or its CA's); otherwise check that the URL names the right server"
        case .checkPinnedKey:
            "Do not sync until you know why: someone may be between this device and the server. If its key was changed on purpose, pin the new one with `aisync remote trust NAME --pin-sha256 KEY`"
        case .retryLater, .waitForLock, .provideCredentials, .provideImgurCredential, .upgrade: nil
        }
    }

    /// An import note in the command line's words: the library's "fetch them" becomes the
    /// `--fetch` option that does it.
    static func note(_ note: String) -> String {
        note.replacingOccurrences(of: "fetch them within the hour", with: "pass --fetch within the hour")
            .replacingOccurrences(of: "import keeping reasoning", with: "import with --with-reasoning")
    }
}

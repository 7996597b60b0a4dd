import AISyncCore
import AISyncFiles

#if canImport(Darwin) && !os(macOS)
    import Foundation
#endif

/// A store is its owner's alone: every folder in it is made 0700 and every file 0600,
/// whatever the umask (``FileIO/privateFile``). A store made by an older aisync, or opened
/// up by hand, is found by ``exposure()`` and closed again by ``makePrivate()``.
///
/// What counts is what other accounts can reach: a path whose mode lets the group or others
/// in, under folders of the store that all let them through. A file left 0644 inside a 0700
/// store folder is out of their reach and not reported (``makePrivate()`` still tightens it).
extension Store {
    /// Paths in the store that give other accounts some access.
    public struct Exposure: Hashable, Sendable, CustomStringConvertible {
        /// How many paths (folders and files) other accounts can reach and read, write or enter.
        public var count: Int
        /// The path that gives others the most (a folder before a file when equal, then the
        /// shallower).
        public var widest: String
        /// The permission bits of ``widest`` (e.g. `0o755`).
        public var mode: UInt32

        /// e.g. `/home/ann/.aisync (mode 0755) and 3,201 other paths in the store can be read by other accounts`.
        public var description: String {
            let others = count - 1
            let more = others > 0 ? " and \(others) other path\(others == 1 ? "" : "s") in the store" : ""
            return "\(widest) (mode \(Self.octal(mode)))\(more) can be \(access) by other accounts"
        }

        /// The problem as `fsck` names it beside the path: `mode 0755: can be read by other
        /// accounts, as can 12 other paths in the store`.
        public var problem: String {
            let others = count - 1
            let more = others > 0 ? ", as can \(others) other path\(others == 1 ? "" : "s") in the store" : ""
            return "mode \(Self.octal(mode)): can be \(access) by other accounts\(more)"
        }

        /// What the widest path lets others do: read, write, or read and write.
        public var access: String {
            let read = mode & 0o044 != 0
            let write = mode & 0o022 != 0
            return read && write ? "read and written" : write ? "written" : read ? "read" : "entered"
        }

        static func octal(_ mode: UInt32) -> String {
            let digits = String(mode, radix: 8)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// The permission bits no store path may have: any for the group or others.
    static let sharedBits: UInt32 = 0o077

    /// Which paths in the store other accounts can reach and read, write or enter (nil when
    /// none): walks the store folder and what is under it that they can get to, following no
    /// symbolic link.
    public func exposure() -> Exposure? {
        var found: Exposure?
        var rank = (bits: 0, folder: false, depth: Int.max)
        Self.walk(root, throughShared: true) { path, _, mode, isDirectory, depth in
            let open = mode & Self.sharedBits
            guard open != 0 else { return }
            let bits = open.nonzeroBitCount
            let better =
                found == nil || bits > rank.bits
                || (bits == rank.bits
                    && (isDirectory && !rank.folder || isDirectory == rank.folder && depth < rank.depth))
            if better {
                rank = (bits, isDirectory, depth)
                found = Exposure(count: (found?.count ?? 0), widest: path, mode: mode)
            }
            found?.count += 1
        }
        return found
    }

    /// Takes the group's and others' permission bits off the store folder and everything in
    /// it (the owner's are left as they are), and on Apple platforms gives the store folder
    /// the data protection new stores get. Returns how many paths it changed; a path it
    /// cannot change is an error naming it.
    @discardableResult
    public func makePrivate() throws(AISyncError) -> Int {
        var changed = 0
        var failure: AISyncError?
        Self.walk(root, throughShared: false) { path, fd, mode, _, _ in
            guard failure == nil, mode & Self.sharedBits != 0 else { return }
            guard fd >= 0 else {
                failure = AISyncError(
                    .permission, "cannot make \(path) private: its owner may not open it",
                    hint: "Give its owner read permission, then try again")
                return
            }
            let code = Platform.setPermissions(of: fd, mode & ~Self.sharedBits)
            if code == 0 {
                changed += 1
            } else {
                failure = FileIO.ioError("change the permissions of", path, errno: code)
            }
        }
        if let failure { throw failure }
        Self.protectData(root)
        return changed
    }

    /// The nearest folder above a store at `root` that any other account can write to (mode
    /// o+w without the sticky bit): someone else could then rename what is in it and put their
    /// own store, or their own folders, in its place. Nil when there is none. A shared folder
    /// with the sticky bit (like `/tmp`) lets only an entry's owner remove or rename it, and
    /// a folder only its group can write is left to the group (per-user groups are common).
    public static func writableByOthers(holding root: String) -> String? {
        var path = root
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        while true {
            let parent = FileIO.parentDirectory(of: path)
            guard parent != path, !parent.isEmpty else { return nil }
            // Followed when a link: the folder it names is what holds the store.
            if let st = Platform.permissions(parent == "/" ? "/" : parent + "/."), st.isDirectory,
                st.mode & 0o002 != 0, st.mode & 0o1000 == 0
            {
                return parent
            }
            path = parent
        }
    }

    /// The entries at the top of a store folder that are the store's (and the temp files a
    /// killed write of one leaves beside it): anything else a user keeps in the folder is
    /// theirs, and neither reported nor changed.
    static let storeEntries: Set<String> = [
        "config.json", "devices.json", "index", "journal.jsonl", "lock", "objects", "sync",
    ]

    static func isStoreEntry(_ name: String) -> Bool {
        storeEntries.contains(name)
            || ["config.json.", "devices.json.", "journal.jsonl."].contains { name.hasPrefix($0) }
    }

    /// Calls `visit` with the store folder and every entry of the store's under it: its path,
    /// a descriptor open on it (-1 when it could not be opened: then only looked at), its mode
    /// bits, whether it is a folder, and how deep it lies. Each entry is opened relative to its
    /// folder's descriptor and never through a symbolic link, so links are neither visited nor
    /// followed, and an entry swapped for a link after it was listed is refused rather than
    /// followed out of the store (a change of mode goes to the descriptor, `fchmod`). The store
    /// folder itself may be a link to where it lives. With `throughShared`, only what other
    /// accounts can get to: a folder's entries only when it lets the group or others through.
    static func walk(
        _ root: String, throughShared: Bool,
        _ visit: (_ path: String, _ fd: Int32, _ mode: UInt32, _ isDirectory: Bool, _ depth: Int) -> Void
    ) {
        let fd = Platform.openEntry(root, in: nil, followLink: true)
        guard fd >= 0 else { return }
        defer { Platform.close(fd) }
        walk(root, open: fd, depth: 0, throughShared: throughShared, visit)
    }

    private static func walk(
        _ path: String, open fd: Int32, depth: Int, throughShared: Bool,
        _ visit: (String, Int32, UInt32, Bool, Int) -> Void
    ) {
        guard let st = Platform.permissions(of: fd) else { return }
        visit(path, fd, st.mode, st.isDirectory, depth)
        guard st.isDirectory, !throughShared || st.mode & 0o011 != 0, let names = Platform.listDirectory(of: fd)
        else { return }
        for name in names.sorted() where depth > 0 || isStoreEntry(name) {
            let child = Platform.openEntry(name, in: fd)
            let childPath = "\(path)/\(name)"
            if child >= 0 {
                walk(childPath, open: child, depth: depth + 1, throughShared: throughShared, visit)
                Platform.close(child)
            } else if let st = Platform.permissions(childPath), !st.isLink {
                // Not openable by its owner (no read bit): looked at, not entered or changed.
                visit(childPath, -1, st.mode, st.isDirectory, depth + 1)
            }
        }
    }

    /// On Apple platforms with data protection, gives the store folder the class
    /// `completeUntilFirstUserAuthentication` (files and folders made in it inherit it): the
    /// data is encrypted while the device has not been unlocked since it started, and a
    /// background sync can still run after. Elsewhere a no-op.
    static func protectData(_ root: String) {
        #if canImport(Darwin) && !os(macOS)
            try? FileManager.default.setAttributes(
                [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: root)
        #endif
    }
}

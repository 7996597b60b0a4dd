import AISyncTestSupport
import Foundation
import Testing

/// A store is its owner's alone, whatever the umask (issue 30): folders 0700, files 0600;
/// what the user writes elsewhere (an export, a saved picture, a folder remote) keeps the
/// umask; an old or opened-up store is reported and repaired.
@Suite("Store privacy")
struct StorePrivacyTests {
    /// Every path under `root` (itself included) with its permission bits and whether it is a folder.
    static func modes(under root: String) -> [(path: String, mode: mode_t, folder: Bool)] {
        var result: [(String, mode_t, Bool)] = []
        func visit(_ path: String) {
            var st = stat()
            guard lstat(path, &st) == 0 else { return }
            let folder = st.st_mode & S_IFMT == S_IFDIR
            result.append((path, st.st_mode & 0o7777, folder))
            guard folder, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names { visit("\(path)/\(name)") }
        }
        visit(root)
        return result
    }

    /// The paths under `root` whose mode is not 0700 (folders) or 0600 (files).
    static func notPrivate(_ root: String) -> [String] {
        modes(under: root).filter { $0.mode != ($0.folder ? 0o700 : 0o600) }.map {
            "\($0.path) \(String($0.mode, radix: 8))"
        }
    }

    static func mode(_ path: String) -> mode_t? {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : nil
    }

    @Test(
        "with umask 022 (and 000), every path of three stores is 0700/0600 after init (one in an existing empty folder), a chat, a picture, a story, push, pull, compact, an encrypted remote with its key remembered and gc; exports of every kind, saved pictures and folder remotes keep the umask",
        arguments: ["022", "000"])
    func privateWhateverTheUmask(umask: String) throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let picture = CLIFixtures.write(CLIFixtures.png, in: dir)
        let script = """
            set -e
            umask \(umask)
            cd "\(dir)"
            A="$AISYNC --store \(dir)/a"
            B="$AISYNC --store \(dir)/nested/deeper/b"
            $A init --name a
            mkdir remote
            chat=$($A chat new --title "Private things")
            $A chat say "$chat" --role user "a secret"
            image=$($A image add "\(picture)")
            $A remote add usb "file://\(dir)/remote"
            $A push
            $B init --name b
            $B remote add usb "file://\(dir)/remote"
            $B pull
            $B chat say "$chat" --role assistant "kept"
            $B sync
            $A sync
            $A compact
            $B pull
            $A export "$chat" --format md --output "\(dir)/chat.md"
            $A image save "$image" "\(dir)/saved.png"
            $A export --all --output "\(dir)/exported"
            $A chat say "$chat" --role assistant "[image: $image]"
            story=$($A story new --title "A tale" --page "Once" --image "$image")
            $A export "$chat" --format md --output "\(dir)/pictured.md"
            $A export "$story" --format html --output "\(dir)/story.html"
            $A export "$story" --format epub --output "\(dir)/story.epub"
            mkdir vault
            AISYNC_PASSPHRASE="correct horse" $A remote add vault "file://\(dir)/vault" --encrypt
            AISYNC_PASSPHRASE="correct horse" $A push vault --remember
            $A gc
            mkdir -m 755 empty
            $AISYNC --store "\(dir)/empty" init --name c
            """
        let r = CLIHarness.shell(script)
        try #require(r.exitCode == 0, "\(r)")
        #expect(Self.mode("\(dir)/a/sync/vault.key") == 0o600, "the remembered key")
        // The third was made in an existing empty folder (mode 0755): it is closed too.
        for (store, least) in [("\(dir)/a", 10), ("\(dir)/nested/deeper/b", 10), ("\(dir)/empty", 5)] {
            #expect(Self.modes(under: store).count > least, "the store was walked: \(store)")
            #expect(Self.notPrivate(store) == [], "umask \(umask): \(store)")
        }
        // What was asked for elsewhere keeps the umask: 0644/0755 under 022, 0666/0777 under 000.
        let file: mode_t = umask == "022" ? 0o644 : 0o666
        let folder: mode_t = umask == "022" ? 0o755 : 0o777
        for exported in ["chat.md", "pictured.md", "story.html", "story.epub"] {
            #expect(Self.mode("\(dir)/\(exported)") == file, "\(exported)")
        }
        let pictures = Self.modes(under: "\(dir)/pictured-images")
        #expect(pictures.count == 2 && pictures.allSatisfy { $0.mode == ($0.folder ? folder : file) }, "\(pictures)")
        #expect(Self.mode("\(dir)/saved.png") == file)
        // The folders above a new store are made as `mkdir -p` makes them.
        #expect(Self.mode("\(dir)/nested") == folder)
        let exported = Self.modes(under: "\(dir)/exported")
        #expect(exported.count > 3)
        #expect(exported.allSatisfy { $0.mode == ($0.folder ? folder : file) }, "\(exported)")
        let remote = (Self.modes(under: "\(dir)/remote") + Self.modes(under: "\(dir)/vault")).filter {
            !$0.path.contains(".aisync-tmp")
        }
        #expect(remote.count > 3)
        #expect(remote.allSatisfy { $0.mode == ($0.folder ? folder : file) }, "\(remote)")
    }

    @Test(
        "another account (uid 65534) can read a file beside the store but not the journal, an object, the index or the config",
        .needsTools("setpriv"))
    func otherAccountsCannotRead() throws {
        try #require(CLIHarness.isRoot, "reading as another account needs root (setpriv), as scripts/test.sh runs")
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let image = CLIFixtures.write(CLIFixtures.png, in: store.directory)
        let id = try store.ok(["image", "add", image])
        try store.ok(["chat", "new", "--title", "Private things"])
        try store.ok(["list"])  // the index is written by the first command that reads it
        let object = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: store.objectsPath).first { $0.contains("/") },
            "an object was stored for \(id)")
        let setpriv = try #require(CLIHarness.which("setpriv"))
        func readAsNobody(_ path: String) -> CLIResult {
            CLIHarness.runProcess(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/cat", path])
        }
        // The control: the folders above the store let everyone through, so a 0644 file there
        // is readable, and only the store's own modes keep the rest out.
        #expect(Self.mode(store.directory) == 0o755)
        let beside = CLIFixtures.writeFile(Data("public".utf8), in: store.directory, name: "beside.txt")
        chmod(beside, 0o644)
        let control = readAsNobody(beside)
        #expect(control.exitCode == 0 && control.stdout == "public", "\(control)")
        let index = try #require(
            try FileManager.default.contentsOfDirectory(atPath: store.indexPath).first.map {
                "\(store.indexPath)/\($0)"
            })
        // Others may pass through the folders on the way (0711), so only each file's own mode
        // keeps them out.
        let objectFolder = "\(store.objectsPath)/\(object.split(separator: "/")[0])"
        for folder in [store.path, store.objectsPath, objectFolder, store.indexPath] { chmod(folder, 0o711) }
        for path in [store.journalPath, "\(store.objectsPath)/\(object)", index, store.configPath] {
            let r = readAsNobody(path)
            #expect(r.exitCode != 0 && r.stderr.contains("Permission denied"), "\(path): \(r)")
        }
    }

    @Test("a store opened up by hand (0755/0644) is reported by status and fsck, and fsck --repair closes it")
    func looseStoreIsReportedAndRepaired() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        try store.ok(["chat", "new", "--title", "Private things"])
        try store.ok(["image", "add", CLIFixtures.write(CLIFixtures.png, in: store.directory)])
        #expect(Self.notPrivate(store.path) == [])
        // A file opened up inside the private store folder is out of other accounts' reach:
        // nothing to report (a repair tightens it all the same).
        let object = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: store.objectsPath).first { $0.contains("/") })
        chmod("\(store.objectsPath)/\(object)", 0o644)
        let status = try store.ok(["status"])
        #expect(!status.contains("private"), "\(status)")
        #expect(try CLIJSON.object(store.run(["status", "--json"]))["private"] as? Bool == true)
        #expect(store.run(["fsck"]).exitCode == 0)

        let opened = CLIHarness.runProcess(
            "/bin/sh",
            [
                "-c",
                "find '\(store.path)' -type d -exec chmod 0755 {} + && find '\(store.path)' -type f -exec chmod 0644 {} +",
            ])
        try #require(opened.exitCode == 0, "\(opened)")
        let count = Self.modes(under: store.path).count
        // A symbolic link in the store is not followed: the folder it points to, and what is
        // in it, are left alone.
        let outsideFolder = "\(store.directory)/outside"
        try FileManager.default.createDirectory(atPath: outsideFolder, withIntermediateDirectories: false)
        chmod(outsideFolder, 0o755)
        let outside = CLIFixtures.writeFile(Data("elsewhere".utf8), in: outsideFolder, name: "outside.txt")
        chmod(outside, 0o644)
        try FileManager.default.createSymbolicLink(
            atPath: "\(store.path)/sync/link", withDestinationPath: outsideFolder)
        // A file of the user's own in the store folder is theirs: not reported, not changed.
        let notes = CLIFixtures.writeFile(Data("mine".utf8), in: store.path, name: "notes.txt")
        chmod(notes, 0o644)
        let reported = try store.ok(["status"])
        #expect(
            reported.contains(
                "private    no: \(store.path) (mode 0755) and \(count - 1) other paths in the store can be read by other accounts; run `aisync fsck --repair`"
            ), "\(reported)")
        let json = try CLIJSON.object(store.run(["status", "--json"]))
        #expect(json["private"] as? Bool == false)
        let exposure = try #require(json["exposure"] as? [String: Any])
        #expect(exposure["widest"] as? String == store.path)
        #expect(exposure["mode"] as? String == "0755")
        #expect(exposure["count"] as? Int == count)
        #expect(exposure["access"] as? String == "read")
        try SchemaValidator.requireAvailable()
        let schema = SchemaValidator.validate("status-output", stdin: store.run(["status", "--json"]).stdoutData)
        #expect(schema.passed, "\(schema)")

        let check = store.run(["fsck"])
        #expect(check.exitCode == 65, "\(check)")
        #expect(
            check.stdout.contains(
                "\(store.path): mode 0755: can be read by other accounts, as can \(count - 1) other paths in the store"),
            "\(check)")
        #expect(check.stderr.contains("aisync fsck --repair"), "\(check)")
        #expect(Self.notPrivate(store.path).count == count + 2, "a check changes nothing")

        let repair = store.run(["fsck", "--repair"])
        #expect(repair.exitCode == 0, "\(repair)")
        #expect(repair.stderr.contains("made \(count) paths in the store private"), "\(repair)")
        #expect(Set(Self.notPrivate(store.path)) == ["\(notes) 644", "\(store.path)/sync/link 777"])
        #expect(Self.mode(outside) == 0o644, "a file behind a link out of the store is not changed")
        #expect(Self.mode(outsideFolder) == 0o755, "a link's target outside the store is not changed")
        #expect(try CLIJSON.object(store.run(["status", "--json"]))["private"] as? Bool == true)
        #expect(store.run(["fsck"]).exitCode == 0)
    }

    @Test(
        "a store in a folder others can write is warned about; in a sticky shared folder like /tmp, or a private one, it is not"
    )
    func storeInAFolderOthersCanWrite() throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let cases: [(name: String, mode: Int, store: String, warned: Bool)] = [
            ("open", 0o777, "store", true), ("sticky", 0o1777, "store", false), ("mine", 0o755, "store", false),
            ("group", 0o775, "store", false),
            // A folder further up that anyone can write: the folders under it can be replaced.
            ("above", 0o777, "deeper/store", true),
            // A trailing slash names the same store.
            ("slash", 0o777, "store/", true),
        ]
        for (name, mode, under, warned) in cases {
            let folder = "\(dir)/\(name)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            chmod(folder, mode_t(mode))
            let made = CLIHarness.run(["init", "--name", name], store: "\(folder)/\(under)")
            #expect(made.exitCode == 0, "\(made)")
            let listed = CLIHarness.run(["list"], store: "\(folder)/\(under)", via: .environment)
            #expect(listed.exitCode == 0, "\(listed)")
            for r in [made, listed] {
                let warning =
                    "warning: other accounts can write to \(folder), which holds the store: they could replace it."
                #expect(r.stderr.contains(warning) == warned, "\(name): \(r)")
                #expect(r.stderr.components(separatedBy: "warning:").count - 1 == (warned ? 1 : 0), "once: \(r)")
            }
            let made2 = "\(folder)/\(under.hasSuffix("/") ? String(under.dropLast()) : under)"
            #expect(Self.notPrivate(made2) == [], "\(made2)")
            if name == "above" { #expect(Self.mode("\(folder)/deeper") == 0o755, "mkdir -p, with the umask") }
        }
    }

    @Test("a store folder that is a link to where it lives is checked and repaired where it lives")
    func storeFolderThatIsALink() throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let real = "\(dir)/real"
        #expect(CLIHarness.run(["init", "--name", "linked"], store: real).exitCode == 0)
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/alias", withDestinationPath: real)
        chmod(real, 0o755)
        let check = CLIHarness.run(["fsck"], store: "\(dir)/alias")
        #expect(check.exitCode == 65 && check.stdout.contains("\(dir)/alias: mode 0755"), "\(check)")
        let repair = CLIHarness.run(["fsck", "--repair"], store: "\(dir)/alias")
        #expect(repair.exitCode == 0, "\(repair)")
        #expect(Self.mode(real) == 0o700)
        #expect(Self.notPrivate(real) == [])
    }
}

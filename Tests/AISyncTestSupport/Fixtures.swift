import Foundation
import Testing

/// Test data for the end-to-end CLI suites: tiny real images and ready-made stores.
package enum CLIFixtures {
    /// A small, real image file. Made with Pillow (`Image.new("RGB", size, colour).save(...)`)
    /// and decoded back by Pillow to confirm its size.
    package struct ImageFile: Sendable, CustomTestStringConvertible {
        package var name: String
        package var mediaType: String
        package var width: Int
        package var height: Int
        package var hex: String
        package var bytes: Data { CLIFixtures.data(hex: hex) }
        package var testDescription: String { "\(name) (\(mediaType) \(width)x\(height))" }
    }

    package static let png = ImageFile(
        name: "red.png", mediaType: "image/png", width: 3, height: 2,
        hex:
            "89504e470d0a1a0a0000000d49484452000000030000000208020000001216f14d0000001049444154789c63fccf00054c3006030013290103f0d807840000000049454e44ae426082"
    )

    package static let jpeg = ImageFile(
        name: "blue.jpg", mediaType: "image/jpeg", width: 4, height: 3,
        hex: """
            ffd8ffe000104a46494600010100000100010000ffdb004300080606070605080707070909080a0c140d0c0b0b0c1912130f141d1a1f1e1d1a1c1c20\
            242e2720222c231c1c2837292c30313434341f27393d38323c2e333432ffdb0043010909090c0b0c180d0d1832211c21323232323232323232323232\
            3232323232323232323232323232323232323232323232323232323232323232323232323232ffc00011080003000403012200021101031101ffc400\
            1f0000010501010101010100000000000000000102030405060708090a0bffc400b5100002010303020403050504040000017d010203000411051221\
            31410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a53545556\
            5758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6\
            c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffc4001f0100030101010101010101010000000000000102030405\
            060708090a0bffc400b51100020102040403040705040400010277000102031104052131061241510761711322328108144291a1b1c109233352f015\
            6272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a828384\
            85868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9ea\
            f2f3f4f5f6f7f8f9faffda000c03010002110311003f00c7a28a2bf4c3f3d3ffd9
            """)

    package static let gif = ImageFile(
        name: "green.gif", mediaType: "image/gif", width: 5, height: 4,
        hex: "4749463837610500040081000000ff000000000000000000002c00000000050004000008090001081c48b060c180003b")

    package static let allImages = [png, jpeg, gif]

    package static func data(hex: String) -> Data {
        let digits = Array(hex.utf8.filter { !($0 == 10 || $0 == 32 || $0 == 92) })
        var out = Data(capacity: digits.count / 2)
        func v(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
        var i = 0
        while i + 1 < digits.count {
            out.append(v(digits[i]) << 4 | v(digits[i + 1]))
            i += 2
        }
        return out
    }

    /// Writes an image fixture into `directory` and returns its path.
    @discardableResult
    package static func write(_ image: ImageFile, in directory: String, as name: String? = nil) -> String {
        let path = "\(directory)/\(name ?? image.name)"
        FileManager.default.createFile(atPath: path, contents: image.bytes)
        return path
    }

    @discardableResult
    package static func writeFile(_ contents: Data, in directory: String, name: String) -> String {
        let path = "\(directory)/\(name)"
        FileManager.default.createFile(atPath: path, contents: contents)
        return path
    }

    /// sha256 of a file, computed independently of aisync (coreutils `sha256sum`, else Python).
    package static func sha256(ofFile path: String) throws -> String {
        var r = CLIHarness.runProcess("/usr/bin/env", ["sha256sum", path])
        if r.exitCode != 0 {
            r = CLIHarness.runProcess(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())", path,
                ])
        }
        try #require(r.exitCode == 0, "cannot hash \(path): \(r)")
        return String(r.stdout.prefix(64))
    }

    package static func sha256(_ data: Data) throws -> String {
        try CLIHarness.withTemporaryDirectory { dir in
            try sha256(ofFile: writeFile(data, in: dir, name: "blob"))
        }
    }

    // MARK: Stores

    /// Adds `count` chats (each with `messages` alternating user/assistant messages) and
    /// returns their ids in creation order.
    @discardableResult
    package static func addChats(_ store: CLIStore, count: Int, messages: Int = 0, titlePrefix: String = "Chat") throws
        -> [String]
    {
        var ids: [String] = []
        for n in 0..<count {
            let id = try store.ok([
                "chat", "new", "--title", "\(titlePrefix) \(n)", "--model", n % 2 == 0 ? "gpt-4o" : "davinci",
            ])
            for m in 0..<messages {
                try store.ok([
                    "chat", "say", id, "--role", m % 2 == 0 ? "user" : "assistant",
                    "message \(m) of \(titlePrefix) \(n)",
                ])
            }
            ids.append(id)
        }
        return ids
    }

    /// What `realisticSession` made.
    package struct Session: Sendable {
        package var chats: [String]
        package var images: [String]
        /// image id → sha256 of its file (computed independently).
        package var imageHashes: [String: String]
        package var story: String
        /// A record that was deleted with `rm`.
        package var deleted: String
        package var favorite: String
        package var renamed: String
        package var all: [String] { chats + images + [story, deleted] }
    }

    /// A realistic session: chats with messages (one from stdin), three images, a story they
    /// illustrate, a rename, a favorite and a delete.
    package static func realisticSession(_ store: CLIStore) throws -> Session {
        let c1 = try store.ok(["chat", "new", "--title", "Trip ideas", "--model", "gpt-4o"])
        try store.ok(["chat", "say", c1, "--role", "system", "You are a helpful travel agent."])
        try store.ok(["chat", "say", c1, "--role", "user", "Where should I go in May? 🌍"])
        try store.ok(
            ["chat", "say", c1, "--role", "assistant", "-"],
            stdin: Data("Try Lisbon:\n- mild weather\n- \"pastéis de nata\"\n".utf8))
        let c2 = try store.ok(["chat", "new", "--title", "Old completions", "--model", "davinci"])
        try store.ok(["chat", "say", c2, "--role", "user", "Once upon a time"])
        let c3 = try store.ok(["chat", "new", "--title", "Scratch"])
        var images: [String] = []
        var hashes: [String: String] = [:]
        for (n, image) in allImages.enumerated() {
            let path = write(image, in: store.directory)
            let id = try store.ok([
                "image", "add", path, "--prompt", "prompt for \(image.name)", "--model",
                n == 0 ? "dall-e-3" : "dall-e-2",
            ])
            images.append(id)
            hashes[id] = try sha256(ofFile: path)
        }
        let story = try store.ok([
            "story", "new", "--title", "The Fox", "--moral", "Be kind",
            "--page", "Once upon a time", "--page", "a fox met a crow", "--page", "The end",
            "--image", images[0], "--image", images[1],
        ])
        try store.ok(["rename", c2, "Old completions (renamed)"])
        try store.ok(["favorite", c1])
        try store.ok(["favorite", images[2]])
        try store.ok(["favorite", images[2], "--off"])
        try store.ok(["rm", c3])
        return Session(
            chats: [c1, c2], images: images, imageHashes: hashes, story: story, deleted: c3, favorite: c1, renamed: c2)
    }
}

/// A Python test server that did not start as expected (no port line, early exit).
package struct HostileServerError: Error, CustomStringConvertible {
    package var message: String
    package init(message: String) { self.message = message }
    package var description: String { message }
}

/// The hand-made exports in Tests/Fixtures/import (make-fixtures.py writes them).
package enum ImportFixture {
    package static let root = "\(CLIHarness.packageRoot)/Tests/Fixtures/import"
    package static func path(_ name: String) -> String { "\(root)/\(name)" }
}

import Foundation
import Testing

/// `image add` checks a file is a whole image of its type, and follows links (issue 13).
@Suite("Image input")
struct ImageInputTests {
    struct Cut: Sendable, CustomTestStringConvertible {
        var image: CLIFixtures.ImageFile
        var keep: Int
        var mentioning: String
        var testDescription: String { "\(image.name) cut to \(keep) bytes" }
    }

    static let cuts: [Cut] = [
        Cut(image: CLIFixtures.png, keep: 8, mentioning: "only a PNG signature"),
        Cut(image: CLIFixtures.png, keep: 60, mentioning: "stop before IEND"),
        Cut(image: CLIFixtures.png, keep: CLIFixtures.png.bytes.count - 12, mentioning: "stop before IEND"),
        Cut(image: CLIFixtures.jpeg, keep: 100, mentioning: "end-of-image marker"),
        Cut(image: CLIFixtures.jpeg, keep: CLIFixtures.jpeg.bytes.count - 2, mentioning: "end-of-image marker"),
        Cut(image: CLIFixtures.gif, keep: 20, mentioning: "GIF trailer"),
    ]

    @Test("a picture cut short is refused with the check that failed, and nothing is added", arguments: cuts)
    func cutShortIsRefused(_ cut: Cut) throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let path = CLIFixtures.writeFile(cut.image.bytes.prefix(cut.keep), in: store.directory, name: "cut-" + cut.image.name)
        let r = store.run(["image", "add", path])
        CLIExpect.cleanError(r, code: 65, mentioning: ["not a whole", cut.mentioning])
        #expect(store.run(["list"]).stdout.isEmpty)
    }

    @Test("a symbolic link to a picture is added as the picture", arguments: CLIFixtures.allImages)
    func symlinkIsFollowed(_ image: CLIFixtures.ImageFile) throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let real = CLIFixtures.write(image, in: store.directory)
        let link = "\(store.directory)/link-\(image.name)"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let id = try store.ok(["image", "add", link])
        let shown = try CLIJSON.object(store.run(["show", id, "--json"]))
        #expect(shown["mediaType"] as? String == image.mediaType, "\(shown)")
        #expect(shown["size"] as? Int == image.bytes.count)
    }
}

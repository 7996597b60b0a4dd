import AISyncTestSupport
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
        Cut(image: CLIFixtures.jpeg, keep: 100, mentioning: "cut short"),
        Cut(image: CLIFixtures.jpeg, keep: CLIFixtures.jpeg.bytes.count - 2, mentioning: "end-of-image marker"),
        Cut(image: CLIFixtures.gif, keep: 20, mentioning: "GIF trailer"),
    ]

    /// The fixture PNG without its IDAT chunks: IHDR and IEND, a picture of nothing.
    static let pngWithoutData: [UInt8] = {
        let bytes = [UInt8](CLIFixtures.png.bytes)
        var out = Array(bytes.prefix(8))
        var at = 8
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if bytes[(at + 4)..<(at + 8)] != [0x49, 0x44, 0x41, 0x54] { out += bytes[at..<(at + 12 + length)] }
            at += 12 + length
        }
        return out
    }()

    static let empties: [(String, [UInt8], String)] = [
        ("no-data.png", pngWithoutData, "no IDAT chunk"),
        ("markers-only.jpg", [0xFF, 0xD8, 0xFF, 0xD9], "before any image data"),
        ("trailer-only.gif", Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B], "no image, only a trailer"),
    ]

    @Test("a file with a whole structure but no image in it is refused, naming what is missing")
    func noImageData() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        #expect(Self.pngWithoutData.count < CLIFixtures.png.bytes.count)
        for (name, bytes, mentioning) in Self.empties {
            let path = CLIFixtures.writeFile(Data(bytes), in: store.directory, name: name)
            CLIExpect.cleanError(
                await store.invoke(["image", "add", path]), code: 65, mentioning: ["not a whole", mentioning])
        }
        #expect(await store.invoke(["list"]).stdout.hasPrefix("No records"))
    }

    @Test("a picture cut short is refused with the check that failed, and nothing is added", arguments: cuts)
    func cutShortIsRefused(_ cut: Cut) async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let path = CLIFixtures.writeFile(
            cut.image.bytes.prefix(cut.keep), in: store.directory, name: "cut-" + cut.image.name)
        let r = await store.invoke(["image", "add", path])
        CLIExpect.cleanError(r, code: 65, mentioning: ["not a whole", cut.mentioning])
        #expect(await store.invoke(["list"]).stdout.hasPrefix("No records"))
    }

    @Test("a symbolic link to a picture is added as the picture", arguments: CLIFixtures.allImages)
    func symlinkIsFollowed(_ image: CLIFixtures.ImageFile) async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let real = CLIFixtures.write(image, in: store.directory)
        let link = "\(store.directory)/link-\(image.name)"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let id = try await store.invokeOK(["image", "add", link])
        let shown = try CLIJSON.object(await store.invoke(["show", id, "--json"]))
        #expect(shown["mediaType"] as? String == image.mediaType, "\(shown)")
        #expect(shown["size"] as? Int == image.bytes.count)
    }
}

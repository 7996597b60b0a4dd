import Testing

@testable import AISyncCLI

/// The typed-command machinery on a command of its own: names and usage come from the
/// fields, values parse into their types, and each mistake is its own usage error.
@Suite struct ParsableCommandTests {
    enum Colour: String, ExpressibleByArgumentWord { case red, green, blue }

    struct Paint: ParsableCommand {
        static let configuration = CommandConfiguration(path: ["paint", "wall"], abstract: "Paint a wall.")
        @Argument(help: "The wall.") var wallID: String
        @Argument(help: "More walls.") var others: [String]
        @Option(valueName: "C", help: "The colour.") var colour: Colour
        @Option(valueName: "N", help: "Coats.") var coats: Int = 2
        @Option(valueName: "NOTE", help: "A note.") var note: String?
        @Option(valueName: "TAG", help: "Tags.") var tag: [String]
        @Flag(help: "Only say what would happen.") var dryRun: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 { 0 }
    }

    /// Options two commands share, declared once.
    struct Brush: ParsableArguments {
        @Option(valueName: "W", help: "Brush width.") var width: Int = 3
        @Flag(help: "Wash the brush after.") var wash: Bool
    }

    struct Touch: ParsableCommand {
        static let configuration = CommandConfiguration(path: ["touch", "up"], abstract: "Touch up a wall.")
        @Argument(help: "The wall.") var wall: String
        @OptionGroup var brush: Brush
        @Flag(help: "Only say what would happen.") var dryRun: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 { 0 }
    }

    @Test func anOptionGroupIsSplicedInWhereItStands() throws {
        #expect(Touch.spec.options.map(\.name) == ["width", "wash", "dry-run"])
        #expect(Touch.spec.usageLine == "aisync touch up [--width W] [--wash] [--dry-run] WALL")
        let plain = try Touch.parsed(from: try parse(["w1"], for: Touch.spec))
        #expect(plain.wall == "w1" && plain.brush.width == 3 && !plain.brush.wash && !plain.dryRun)
        let full = try Touch.parsed(from: try parse(["--wash", "w2", "--width", "7", "--dry-run"], for: Touch.spec))
        #expect(full.wall == "w2" && full.brush.width == 7 && full.brush.wash && full.dryRun)
        do {
            _ = try Touch.parsed(from: try parse(["w3", "--width", "wide"], for: Touch.spec))
            Issue.record("a group's field is checked like any other")
        } catch {
            #expect(error.error.code == .usage && error.error.description.contains("--width"))
        }
    }

    static func parsed(_ words: [String]) throws(CLIError) -> Paint {
        try Paint.parsed(from: try parse(words, for: Paint.spec))
    }

    static func usageError(_ words: [String]) -> String? {
        do {
            _ = try parsed(words)
            return nil
        } catch {
            return error.error.code == .usage ? error.error.description : "not a usage error: \(error.error)"
        }
    }

    @Test func onlyAnImportGetsAnArenaPerThread() {
        #expect(CommandLineTool.allocatorArenas(["import", "export.zip"]) == 8)
        #expect(CommandLineTool.allocatorArenas(["--store", "import", "import", "x"]) == 8)
        #expect(CommandLineTool.allocatorArenas(["--store=/s", "import"]) == 8)
        #expect(CommandLineTool.allocatorArenas(["--store", "import", "list"]) == 1)
        #expect(CommandLineTool.allocatorArenas(["chat", "new", "--title", "import"]) == 1)
        #expect(CommandLineTool.allocatorArenas([]) == 1)
    }

    @Test func theSpecComesFromTheFields() {
        let spec = Paint.spec
        #expect(spec.arguments.map(\.name) == ["WALL_ID", "OTHERS"])
        #expect(spec.arguments.map(\.variadic) == [false, true])
        #expect(spec.options.map(\.name) == ["colour", "coats", "note", "tag", "dry-run"])
        #expect(spec.options.map(\.required) == [true, false, false, false, false])
        #expect(spec.options.map(\.isFlag) == [false, false, false, false, true])
        #expect(
            spec.usageLine
                == "aisync paint wall --colour C [--coats N] [--note NOTE] [--tag TAG]... [--dry-run] WALL_ID [OTHERS...]"
        )
    }

    @Test func valuesParseIntoTheirTypes() throws {
        let plain = try Self.parsed(["w1", "--colour", "red"])
        #expect(plain.wallID == "w1" && plain.others.isEmpty && plain.colour == .red)
        #expect(plain.coats == 2 && plain.note == nil && plain.tag.isEmpty && !plain.dryRun)
        let full = try Self.parsed([
            "--dry-run", "w1", "--coats=3", "w2", "--tag", "a", "--colour", "blue", "w3", "--tag", "b", "--note", "x y",
        ])
        #expect(full.wallID == "w1" && full.others == ["w2", "w3"] && full.colour == .blue)
        #expect(full.coats == 3 && full.note == "x y" && full.tag == ["a", "b"] && full.dryRun)
    }

    @Test(arguments: [
        (["w1"], "missing --colour"),
        (["--colour", "red"], "missing argument WALL_ID"),
        (["w1", "--colour", "pink"], "unknown colour 'pink'. Use red, green or blue"),
        (["w1", "--colour", "red", "--coats", "two"], "--coats must be a whole number, not 'two'"),
        (["w1", "--colour", "red", "--colour", "blue"], "option '--colour' was given more than once"),
        (["w1", "--colour", "red", "--dry-run=yes"], "option '--dry-run' takes no value"),
        (["w1", "--colour", "red", "--coat", "3"], "unknown option '--coat'. Did you mean '--coats'?"),
    ])
    func mistakesAreUsageErrors(words: [String], message: String) {
        let error = Self.usageError(words)
        #expect(error?.hasPrefix(message) == true, "\(words): \(error ?? "accepted")")
    }

    @Test func propertyNamesBecomeOptionAndArgumentNames() {
        #expect(FieldName.option("allowMassDelete") == "allow-mass-delete")
        #expect(FieldName.option("messageID") == "message-id")
        #expect(FieldName.option("json") == "json")
        #expect(FieldName.argument("messageID") == "MESSAGE_ID")
        #expect(FieldName.argument("id") == "ID")
        #expect(FieldName.argument("imageURLPath") == "IMAGE_URL_PATH")
    }
}

/// What a typed command says about itself besides its fields.
struct CommandConfiguration: Sendable {
    /// The words that name it: `["chat", "say"]`.
    var path: [String]
    /// One line for `aisync help`.
    var abstract: String
    /// More help, shown by `aisync help COMMAND`.
    var discussion: String? = nil
    /// Left out of help and completion.
    var hidden = false
}

/// What every command gets besides its own fields: the store named by `--store`, and the
/// command's name for the errors it reports.
struct CommandContext: Sendable {
    /// `--store DIR`, if given.
    var store: String?
    /// The command's words, `chat say`.
    var command: String

    /// A usage error of this command (exit 64), pointing at its help.
    func usage(_ message: String, hint: String? = nil) -> CLIError {
        CLIError(usage: message, hint: hint, command: command)
    }
}

extension Invocation {
    /// The store option and command name, as a typed command's context.
    var context: CommandContext { CommandContext(store: option("store"), command: command) }
}

/// A command declared as a struct of typed fields (`@Argument`, `@Option`, `@Flag`), in the
/// shape of swift-argument-parser: the usage line, help, completion, man page and parsing
/// errors are all generated from the fields, and ``run(_:)`` reads fields, never strings.
///
/// The fields are found by reflecting a default instance (`init()`), in declaration order,
/// and filled in by decoding (the synthesized `Decodable` conformance) from the parsed
/// command line. Only wrapped fields may be stored properties of a command.
protocol ParsableCommand: ParsableArguments {
    /// The command's name and help.
    static var configuration: CommandConfiguration { get }
    /// Checks what one field alone cannot (two options that exclude each other, a range).
    func validate(_ context: CommandContext) throws(CLIError)
    /// Runs the command; returns the exit status.
    func run(_ context: CommandContext) async throws(CLIError) -> Int32
}

/// Fields that several commands share (`@OptionGroup`), or a command's own: a struct of
/// wrapped fields with a default instance to reflect.
protocol ParsableArguments: Decodable, Sendable {
    /// Every field at its default (for reflection).
    init()
}

extension ParsableArguments {
    /// The fields, in declaration order, an option group's spliced in where it stands:
    /// property name and field.
    static var fields: [(label: String, field: any CommandField)] {
        Mirror(reflecting: Self()).children.flatMap { child -> [(label: String, field: any CommandField)] in
            if let group = child.value as? any OptionGroupField { return group.fields }
            guard var label = child.label, let field = child.value as? any CommandField else { return [] }
            if label.hasPrefix("_") { label.removeFirst() }
            return [(label, field)]
        }
    }
}

extension ParsableCommand {
    func validate(_ context: CommandContext) throws(CLIError) {}

    /// The command as the parser, help and completion see it.
    static var spec: CommandSpec {
        let fields = Self.fields
        return CommandSpec(
            path: configuration.path, abstract: configuration.abstract, discussion: configuration.discussion,
            arguments: fields.compactMap { $0.field.argumentSpec(label: $0.label) },
            options: fields.compactMap { $0.field.optionSpec(label: $0.label) },
            hidden: configuration.hidden
        ) { (invocation: Invocation) throws(CLIError) -> Int32 in
            let command = try Self.parsed(from: invocation)
            try command.validate(invocation.context)
            return try await command.run(invocation.context)
        }
    }

    /// The command with its fields filled in from a parsed command line.
    static func parsed(from invocation: Invocation) throws(CLIError) -> Self {
        let fields = Self.fields
        var positions: [String: Int] = [:]
        for (index, entry) in fields.filter({ $0.field.argumentSpec(label: $0.label) != nil }).enumerated() {
            positions[entry.label] = index
        }
        let source = FieldSource(
            invocation: invocation, defaults: Dictionary(fields.map { ($0.label, $0.field) }) { a, _ in a },
            positions: positions, usageLine: spec(fields).usageLine)
        do {
            return try Self(from: CommandDecoder(source: source))
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(
                usage: "cannot read the arguments of \(invocation.command): \(error)", command: invocation.command)
        }
    }

    /// The usage line's spec without a body (for error hints while decoding).
    private static func spec(_ fields: [(label: String, field: any CommandField)]) -> CommandSpec {
        CommandSpec(
            path: configuration.path, abstract: configuration.abstract,
            arguments: fields.compactMap { $0.field.argumentSpec(label: $0.label) },
            options: fields.compactMap { $0.field.optionSpec(label: $0.label) }
        ) { (_: Invocation) throws(CLIError) -> Int32 in ExitCode.success }
    }
}

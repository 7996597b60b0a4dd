/// What a field of a ``ParsableCommand`` is on the command line: an argument or an option.
protocol CommandField: Sendable {
    /// The argument's spec, when the field is a positional argument.
    func argumentSpec(label: String) -> ArgumentSpec?
    /// The option's spec, when the field is an option or a flag.
    func optionSpec(label: String) -> OptionSpec?
}

/// What the parser hands one field: the words given for it and what its errors need.
struct FieldInput {
    /// For an option, every value given (in order); for an argument, its word (or the rest,
    /// for a variadic one); empty when not given.
    var texts: [String]
    /// `--role` or `ID`, as errors name it.
    var name: String
    /// The command's words.
    var command: String
    /// The command's usage line, for the hint of a missing field.
    var usageLine: String

    /// The error for a field that must be given.
    func missing() -> CLIError {
        let what = name.hasPrefix("--") ? "missing \(name)" : "missing argument \(name)"
        return CLIError(usage: what, hint: "Usage: \(usageLine)", command: command)
    }

    /// One word as a `T`, or the type's error for it.
    func convert<T: ExpressibleByArgument>(_ text: String, to: T.Type) throws(CLIError) -> T {
        guard let value = T(argument: text) else {
            let (message, hint) = T.invalid(text, name: name)
            throw CLIError(usage: message, hint: hint, command: command)
        }
        return value
    }
}

/// The words of a property name: `allowMassDelete` is `allow-mass-delete` as an option and
/// `ALLOW_MASS_DELETE` as an argument; `messageID` is `message-id` and `MESSAGE_ID`.
enum FieldName {
    static func words(_ label: String) -> [String] {
        var words: [String] = []
        var current = ""
        let characters = Array(label)
        for (i, c) in characters.enumerated() {
            let nextIsLower = i + 1 < characters.count && characters[i + 1].isLowercase
            if c.isUppercase, !current.isEmpty, current.last!.isLowercase || nextIsLower {
                words.append(current)
                current = ""
            }
            current.append(c)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    static func option(_ label: String) -> String { words(label).map { $0.lowercased() }.joined(separator: "-") }
    static func argument(_ label: String) -> String { words(label).map { $0.uppercased() }.joined(separator: "_") }
}

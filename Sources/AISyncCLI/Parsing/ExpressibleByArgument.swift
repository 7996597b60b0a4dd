/// A type an argument's or option's text turns into.
protocol ExpressibleByArgument: Sendable {
    /// The value the text names, or nil when it names none.
    init?(argument: String)
    /// The error for text that names no value: `name` is `--role` or `ID`.
    static func invalid(_ text: String, name: String) -> (message: String, hint: String?)
}

extension ExpressibleByArgument {
    static func invalid(_ text: String, name: String) -> (message: String, hint: String?) {
        ("\(name) cannot be '\(text.prefix(40))'", nil)
    }
}

extension String: ExpressibleByArgument {
    init?(argument: String) { self = argument }
}

extension Int: ExpressibleByArgument {
    init?(argument: String) { self.init(argument) }

    static func invalid(_ text: String, name: String) -> (message: String, hint: String?) {
        ("\(name) must be a whole number, not '\(text.prefix(40))'", nil)
    }
}

/// Enumerations of words (`--kind chat|story|image`): the error names the option without its
/// dashes ("unknown kind 'x'") and lists the words.
protocol ExpressibleByArgumentWord: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {}

extension ExpressibleByArgumentWord {
    init?(argument: String) { self.init(rawValue: argument) }

    static func invalid(_ text: String, name: String) -> (message: String, hint: String?) {
        let words = allCases.map(\.rawValue)
        let list = words.count > 1 ? words.dropLast().joined(separator: ", ") + " or " + words.last! : words.joined()
        let noun = name.hasPrefix("--") ? String(name.dropFirst(2)) : name.lowercased()
        return ("unknown \(noun) '\(text.prefix(40))'", "Use \(list)")
    }
}

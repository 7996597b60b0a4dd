/// An option that takes a value: `--title T`. Its name is the property's, in kebab case,
/// unless given. Required when it has neither a default nor an optional or array type; an
/// array collects every occurrence.
@propertyWrapper
struct Option<Value: Sendable>: CommandField, Decodable {
    private let name: String?
    private let valueName: String
    private let help: String
    private let required: Bool
    private let repeatable: Bool
    private let parse: @Sendable (FieldInput) throws(CLIError) -> Value?
    private var value: Value?

    /// The parsed value (the default until parsed).
    var wrappedValue: Value { value! }

    /// An option with a default.
    init(wrappedValue: Value, name: String? = nil, valueName: String, help: String) where Value: ExpressibleByArgument {
        (self.name, self.valueName, self.help, required, repeatable) = (name, valueName, help, false, false)
        value = wrappedValue
        parse = { input throws(CLIError) in
            try input.texts.last.map { text throws(CLIError) in try input.convert(text, to: Value.self) }
        }
    }

    /// An option that must be given.
    init(name: String? = nil, valueName: String, help: String) where Value: ExpressibleByArgument {
        (self.name, self.valueName, self.help, required, repeatable) = (name, valueName, help, true, false)
        parse = { input throws(CLIError) in
            guard let text = input.texts.last else { throw input.missing() }
            return try input.convert(text, to: Value.self)
        }
    }

    /// An option that may be left out (nil).
    init<T: ExpressibleByArgument>(name: String? = nil, valueName: String, help: String) where Value == T? {
        (self.name, self.valueName, self.help, required, repeatable) = (name, valueName, help, false, false)
        value = .some(nil)
        parse = { input throws(CLIError) in
            try input.texts.last.map { text throws(CLIError) -> T? in try input.convert(text, to: T.self) }
        }
    }

    /// An option given any number of times (`atLeastOnce`: one or more).
    init<T: ExpressibleByArgument>(name: String? = nil, valueName: String, help: String, atLeastOnce: Bool = false)
    where Value == [T] {
        (self.name, self.valueName, self.help, required, repeatable) = (name, valueName, help, atLeastOnce, true)
        value = []
        parse = { input throws(CLIError) in
            if atLeastOnce, input.texts.isEmpty { throw input.missing() }
            var values: [T] = []
            for text in input.texts { values.append(try input.convert(text, to: T.self)) }
            return values
        }
    }

    func argumentSpec(label: String) -> ArgumentSpec? { nil }

    func optionSpec(label: String) -> OptionSpec? {
        OptionSpec(
            name: name ?? FieldName.option(label), valueName: valueName, help: help, repeatable: repeatable,
            required: required)
    }

    init(from decoder: any Decoder) throws {
        let (field, label, source) = try FieldDecoder.context(Self.self, decoder)
        self = field
        let name = field.name ?? FieldName.option(label)
        if let parsed = try parse(source.input("--\(name)", source.invocation.options(name))) { value = parsed }
    }
}

/// An option without a value: `--json`. False unless given.
@propertyWrapper
struct Flag: CommandField, Decodable {
    private let name: String?
    private let help: String
    /// Whether it was given.
    private(set) var wrappedValue = false

    init(name: String? = nil, help: String) { (self.name, self.help) = (name, help) }

    func argumentSpec(label: String) -> ArgumentSpec? { nil }
    func optionSpec(label: String) -> OptionSpec? { OptionSpec(name: name ?? FieldName.option(label), help: help) }

    init(from decoder: any Decoder) throws {
        let (field, label, source) = try FieldDecoder.context(Self.self, decoder)
        self = field
        wrappedValue = source.invocation.flag(field.name ?? FieldName.option(label))
    }
}

/// A positional argument: `ID`. Its name is the property's in upper snake case unless
/// given. Required unless optional; an array takes every remaining word.
@propertyWrapper
struct Argument<Value: Sendable>: CommandField, Decodable {
    private let name: String?
    private let help: String
    private let optional: Bool
    private let variadic: Bool
    private let parse: @Sendable (FieldInput) throws(CLIError) -> Value?
    private var value: Value?

    /// The parsed value (the default until parsed).
    var wrappedValue: Value { value! }

    /// An argument that must be given.
    init(name: String? = nil, help: String) where Value: ExpressibleByArgument {
        (self.name, self.help, optional, variadic) = (name, help, false, false)
        parse = { input throws(CLIError) in
            guard let text = input.texts.first else { throw input.missing() }
            return try input.convert(text, to: Value.self)
        }
    }

    /// An argument that may be left out (nil).
    init<T: ExpressibleByArgument>(name: String? = nil, help: String) where Value == T? {
        (self.name, self.help, optional, variadic) = (name, help, true, false)
        value = .some(nil)
        parse = { input throws(CLIError) in
            try input.texts.first.map { text throws(CLIError) -> T? in try input.convert(text, to: T.self) }
        }
    }

    /// Every remaining word (`atLeastOne`: one or more).
    init<T: ExpressibleByArgument>(name: String? = nil, help: String, atLeastOne: Bool = false) where Value == [T] {
        (self.name, self.help, optional, variadic) = (name, help, !atLeastOne, true)
        value = []
        parse = { input throws(CLIError) in
            if atLeastOne, input.texts.isEmpty { throw input.missing() }
            var values: [T] = []
            for text in input.texts { values.append(try input.convert(text, to: T.self)) }
            return values
        }
    }

    func argumentSpec(label: String) -> ArgumentSpec? {
        ArgumentSpec(name: name ?? FieldName.argument(label), help: help, optional: optional, variadic: variadic)
    }

    func optionSpec(label: String) -> OptionSpec? { nil }

    init(from decoder: any Decoder) throws {
        let (field, label, source) = try FieldDecoder.context(Self.self, decoder)
        self = field
        let position = source.positions[label] ?? 0
        let words = source.invocation.positionals
        let texts = position < words.count ? (field.variadic ? Array(words[position...]) : [words[position]]) : []
        if let parsed = try parse(source.input(field.name ?? FieldName.argument(label), texts)) { value = parsed }
    }
}

/// Fields declared once and used by several commands (`@OptionGroup var transfer:
/// TransferOptions`): they appear on the command line, in help and in completion as if each
/// were declared where the group stands. Field names must not repeat across a command.
@propertyWrapper
struct OptionGroup<Value: ParsableArguments>: Decodable, Sendable, OptionGroupField {
    /// The group's fields, parsed.
    var wrappedValue: Value

    init() { wrappedValue = Value() }

    init(from decoder: any Decoder) throws {
        guard let decoder = decoder as? FieldDecoder else { throw FieldDecoder.onlyFields(decoder.codingPath) }
        wrappedValue = try Value(from: CommandDecoder(source: decoder.source))
    }

    var fields: [(label: String, field: any CommandField)] { Value.fields }
}

/// What the field list sees of an ``OptionGroup``: the fields it splices in.
protocol OptionGroupField {
    var fields: [(label: String, field: any CommandField)] { get }
}

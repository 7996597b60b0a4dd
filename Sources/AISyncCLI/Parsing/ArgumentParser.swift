/// A small argument parser: options (`--name value`, `--name=value`, flags) anywhere among
/// positionals, `--` to end options, and usage errors that suggest the closest option.
struct OptionSpec {
    var name: String
    var valueName: String?
    var help: String
    var repeatable = false
    /// Shown without brackets in the usage line (the command checks presence itself).
    var required = false
    var isFlag: Bool { valueName == nil }
}

struct ArgumentSpec {
    var name: String
    var help: String
    var optional = false
    var variadic = false
}

/// The parsed command line of one command.
struct Invocation {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var command: String

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func option(_ name: String) -> String? { values[name]?.last }
    func options(_ name: String) -> [String] { values[name] ?? [] }
}

/// Options every command accepts.
let globalOptions = [
    OptionSpec(name: "store", valueName: "DIR", help: "The store to use (default: $AISYNC_HOME, else ~/.aisync)."),
    OptionSpec(name: "help", help: "Show help for this command."),
]

/// The long form of a short option: `-o FILE` is `--output FILE` wherever a command writes a
/// file; `-n N` and `-n20` (as head and git log take it) are `--limit`.
private func longForm(_ arg: String, _ options: [OptionSpec]) -> String {
    if arg == "-o", options.contains(where: { $0.name == "output" }) { return "--output" }
    guard options.contains(where: { $0.name == "limit" }) else { return arg }
    if arg == "-n" { return "--limit" }
    if arg.hasPrefix("-n"), arg.count > 2, arg.dropFirst(2).allSatisfy(\.isNumber) {
        return "--limit=" + arg.dropFirst(2)
    }
    return arg
}

func parse(_ args: [String], for command: CommandSpec) throws(CLIError) -> Invocation {
    let options = command.options + globalOptions
    var result = Invocation(command: command.fullName)
    var index = 0
    var onlyPositionals = false
    while index < args.count {
        var arg = args[index]
        index += 1
        if !onlyPositionals { arg = longForm(arg, options) }
        if onlyPositionals || !arg.hasPrefix("-") || arg == "-" {
            result.positionals.append(arg)
            continue
        }
        if arg == "--" {
            onlyPositionals = true
            continue
        }
        if arg == "-h" {
            result.flags.insert("help")
            continue
        }
        guard arg.hasPrefix("--") else {
            throw CLIError(
                usage: "unknown option '\(arg)'", hint: "See `aisync \(command.fullName) --help`",
                command: command.fullName)
        }
        var name = String(arg.dropFirst(2))
        var inline: String?
        if let eq = name.firstIndex(of: "=") {
            inline = String(name[name.index(after: eq)...])
            name = String(name[..<eq])
        }
        let spec = try option(named: name, in: options, of: command)
        if spec.isFlag {
            guard inline == nil else {
                throw CLIError(usage: "option '--\(name)' takes no value", command: command.fullName)
            }
            result.flags.insert(name)
            continue
        }
        let value: String
        if let inline {
            value = inline
        } else {
            guard index < args.count else {
                throw CLIError(
                    usage: "option '--\(name)' needs a value (\(spec.valueName!))",
                    hint: "See `aisync \(command.fullName) --help`", command: command.fullName)
            }
            value = args[index]
            index += 1
        }
        if !spec.repeatable, result.values[name] != nil {
            throw CLIError(usage: "option '--\(name)' was given more than once", command: command.fullName)
        }
        result.values[name, default: []].append(value)
    }
    if !result.flag("help") { try checkArgumentCount(result, for: command) }
    return result
}

/// The option `--name` of `command`, or a usage error naming the closest one.
private func option(named name: String, in options: [OptionSpec], of command: CommandSpec) throws(CLIError)
    -> OptionSpec
{
    if let spec = options.first(where: { $0.name == name }) { return spec }
    let guess = closest(name, among: options.map(\.name)).map { " Did you mean '--\($0)'?" } ?? ""
    throw CLIError(
        usage: "unknown option '--\(name)'",
        hint: "\(guess.isEmpty ? "" : guess.dropFirst() + " ")See `aisync \(command.fullName) --help`",
        command: command.fullName)
}

/// Too few or too many positional arguments for `command` is a usage error.
private func checkArgumentCount(_ result: Invocation, for command: CommandSpec) throws(CLIError) {
    let required = command.arguments.filter { !$0.optional }.count
    let variadic = command.arguments.contains { $0.variadic }
    if result.positionals.count < required {
        let missing = command.arguments[result.positionals.count]
        throw CLIError(
            usage: "missing argument \(missing.name)", hint: "Usage: \(command.usageLine)", command: command.fullName)
    }
    if !variadic, result.positionals.count > command.arguments.count {
        throw CLIError(
            usage: "unexpected argument '\(result.positionals[command.arguments.count])'",
            hint: "Usage: \(command.usageLine)", command: command.fullName)
    }
}

/// The candidate within edit distance 2 (or a third of the word), for "did you mean".
func closest(_ word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 }
    guard let (best, distance) = scored, distance <= max(2, word.count / 3) else { return nil }
    return best
}

/// Optimal string alignment distance: edits plus adjacent transpositions ("lsit" → "list" is 1).
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
        }
    }
    return d[a.count][b.count]
}

/// One command of the `aisync` command line: its names, help, and what it runs.
struct CommandSpec {
    var path: [String]
    var abstract: String
    var discussion: String? = nil
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    var hidden = false
    var run: @Sendable (Invocation) async throws(CLIError) -> Int32

    var fullName: String { path.joined(separator: " ") }

    var usageLine: String {
        var parts = ["aisync", fullName]
        for o in options {
            let text = o.isFlag ? "--\(o.name)" : "--\(o.name) \(o.valueName!)"
            let shown = o.required ? text : "[\(text)]"
            parts.append(o.repeatable ? shown + "..." : shown)
        }
        for a in arguments {
            let text = a.name + (a.variadic ? "..." : "")
            parts.append(a.optional ? "[\(text)]" : text)
        }
        return parts.joined(separator: " ")
    }
}

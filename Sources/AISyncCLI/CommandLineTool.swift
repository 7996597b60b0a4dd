import AISync

/// The `aisync` command line as a library: parse, call the library, print, return a status.
///
/// The `aisync` executable is `await CommandLineTool.main()`; tests call ``run(_:)`` in-process
/// inside ``CLIPlatform/capturing(environment:standardInput:_:)``, which captures what a command
/// prints. No logic of the product lives here: every command body calls `AISync`.
public enum CommandLineTool {
    /// The program's version, as `aisync --version` prints it.
    public static let version = Help.version

    /// Every command the user's binary has (benchmark commands are in `aisync-bench`).
    static let commandTypes: [any ParsableCommand.Type] =
        RecordCommands.all + InspectCommands.all + SyncCommands.all + ImgurCommands.all + ExportCommands.all
        + ImportCommands.all + CompletionCommands.all + [ManPage.command]

    /// Every command's spec, for help, completion and the man page. Running one command
    /// reflects only that command's fields: reflecting all of them costs milliseconds.
    static var commands: [CommandSpec] { commandTypes.map { $0.spec } }

    /// Runs the command line of this process and exits with its status. Ctrl-C or SIGTERM
    /// cancels the command (exit 130); a second one exits at once.
    public static func main() async -> Never {
        CLIPlatform.ignoreBrokenPipe()
        let arguments = CLIPlatform.arguments()
        Platform.tuneAllocatorForBatchWork(arenas: (try? arguments.get()).map(allocatorArenas) ?? 1)
        let task = Task { () -> Int32 in
            switch arguments {
            case .success(let arguments): await run(arguments)
            case .failure(let error): fail(error)
            }
        }
        let interrupts = CLIPlatform.cancelOnInterrupt(task)
        let status = await task.value
        withExtendedLifetime(interrupts) {}
        CLIPlatform.exit(status)
    }

    /// How many heap arenas a command line's process gets: an import keeps two threads
    /// allocating at once (one parses the next batch while the other writes the last), and
    /// with one arena they queue on its lock: a 217 MB import took 5.3-7.6 s instead of
    /// 3.7-3.9 s (docs/PERFORMANCE.md §3.7). Every other command keeps one.
    static func allocatorArenas(_ arguments: [String]) -> Int32 {
        var words = arguments[...]
        while let head = words.first, head == "--store" || head.hasPrefix("--store=") {
            words = words.dropFirst(head == "--store" ? 2 : 1)
        }
        return words.first == "import" ? 8 : 1
    }

    /// Runs one command line (the words after the program's name) and returns its exit status
    /// (``ExitCode``). Errors are printed as `Error: …` on standard error, never thrown.
    public static func run(_ arguments: [String]) async -> Int32 {
        var args = arguments
        // `--store DIR` may also come before the command, as with git's -C.
        var leading: [String] = []
        while let head = args.first, head == "--store" || head.hasPrefix("--store=") {
            leading.append(head)
            args.removeFirst()
            if head == "--store" {
                guard let value = args.first else {
                    return fail(CLIError(usage: "option '--store' needs a value (DIR)"))
                }
                leading.append(value)
                args.removeFirst()
            }
        }
        guard let first = args.first else {
            return fail(CLIError(usage: "no command given", hint: "See `aisync help` for the commands"))
        }
        if first == "--version" || first == "-v" || first == "-V" {
            CLIPlatform.out("aisync \(Help.version)\n")
            return ExitCode.success
        }
        if first == "help" || first == "--help" || first == "-h" {
            return helpCommand(Array(args.dropFirst()).filter { !$0.hasPrefix("-") })
        }
        // The longest command path that matches the leading words.
        guard
            let type = commandTypes.filter({ args.starts(with: $0.configuration.path) })
                .max(by: { $0.configuration.path.count < $1.configuration.path.count })
        else {
            return await noCommand(args, leading: leading)
        }
        let command = type.spec
        do {
            let inv = try parse(leading + Array(args.dropFirst(command.path.count)), for: command)
            if inv.flag("help") {
                CLIPlatform.out(Help.command(command))
                return ExitCode.success
            }
            return try await command.run(inv)
        } catch {
            return fail(error)
        }
    }

    /// The leading words name no command: a group alone (`aisync remote`), a group's help,
    /// or a mistake, answered with the closest command.
    private static func noCommand(_ args: [String], leading: [String]) async -> Int32 {
        let commands = Self.commands
        let first = args[0]
        guard commands.contains(where: { $0.path.count > 1 && $0.path[0] == first }) else {
            return fail(CLIError(usage: "no such command '\(first)'", hint: suggestion(first)))
        }
        if args.count > 1, args[1] == "--help" || args[1] == "-h" {
            CLIPlatform.out(Help.group(first, commands))
            return ExitCode.success
        }
        // `aisync remote` alone lists the remotes, as `git remote` does.
        if first == "remote", args.count == 1 || args[1].hasPrefix("-"),
            let list = commands.first(where: { $0.path == ["remote", "list"] })
        {
            do { return try await list.run(try parse(leading + Array(args.dropFirst()), for: list)) } catch {
                return fail(error)
            }
        }
        if args.count == 1 {
            let subs = commands.filter { $0.path.first == first && $0.path.count > 1 }.map { $0.path[1] }
            return fail(
                CLIError(
                    usage: "'aisync \(first)' needs a subcommand (\(subs.joined(separator: ", ")))",
                    hint: "See `aisync help \(first)`"))
        }
        return fail(CLIError(usage: "no such command '\(first) \(args[1])'", hint: suggestion("\(first) \(args[1])")))
    }

    static func helpCommand(_ words: [String]) -> Int32 {
        let commands = Self.commands
        if words.isEmpty {
            CLIPlatform.out(Help.root(commands))
            return ExitCode.success
        }
        if let c = commands.first(where: { $0.path == words }) {
            CLIPlatform.out(Help.command(c))
            return ExitCode.success
        }
        if words.count == 1, commands.contains(where: { $0.path.count > 1 && $0.path[0] == words[0] }) {
            CLIPlatform.out(Help.group(words[0], commands))
            return ExitCode.success
        }
        return fail(
            CLIError(
                usage: "no such command '\(words.joined(separator: " "))'",
                hint: suggestion(words.joined(separator: " "))))
    }

    static func suggestion(_ word: String) -> String {
        let names =
            commands.filter { !$0.hidden }.map(\.fullName) + [
                "chat", "image", "story", "remote", "imgur", "passphrase", "help",
            ]
        if let guess = closest(word, among: names) { return "Did you mean '\(guess)'? See `aisync help`" }
        return "See `aisync help`"
    }

    static func fail(_ error: CLIError) -> Int32 {
        // The error starts its own line: after a progress line (erased) or a typed ^C.
        if !SyncCommands.progressBar.clear(), error.error.code == .cancelled, CLIPlatform.showsProgress {
            CLIPlatform.err("\n")
        }
        CLIPlatform.err("\("Error:", .boldRed) \(ErrorText.line(error.error))\n" as Styled)
        return ExitCode.forCode(error.error.code)
    }
}

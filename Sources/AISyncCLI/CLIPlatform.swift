import Foundation
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every libc call the command line makes: argv, output streams, terminals, exit.
///
/// Inside ``capturing(environment:standardInput:_:)`` a command runs in-process as it would in
/// its own process with stdin, stdout and stderr redirected to files: what it prints is
/// captured, it sees the environment given, and nothing is a terminal.
public enum CLIPlatform {
    /// What one in-process run of a command sees and prints.
    public final class Session: Sendable {
        /// The environment the command sees instead of the process's.
        public let environment: [String: String]
        /// What the command reads from standard input.
        public let standardInput: [UInt8]
        private let output = Mutex<(out: [UInt8], err: [UInt8])>(([], []))

        init(environment: [String: String], standardInput: [UInt8]) {
            self.environment = environment
            self.standardInput = standardInput
        }

        /// What the command wrote to standard output.
        public var standardOutput: [UInt8] { output.withLock { $0.out } }
        /// What the command wrote to standard error.
        public var standardError: [UInt8] { output.withLock { $0.err } }

        fileprivate func append(_ bytes: [UInt8], to fd: Int32) -> Bool {
            guard fd == 1 || fd == 2 else { return false }
            output.withLock { if fd == 1 { $0.out += bytes } else { $0.err += bytes } }
            return true
        }
    }

    /// The session of the command running in this task, if it runs in-process.
    @TaskLocal static var session: Session?

    /// Runs `body` (usually ``CommandLineTool/run(_:)``) with its output captured, seeing
    /// `environment` and reading `standardInput`; returns the session holding what it wrote.
    public static func capturing(
        environment: [String: String], standardInput: [UInt8] = [], _ body: () async -> Int32
    ) async -> (status: Int32, session: Session) {
        let session = Session(environment: environment, standardInput: standardInput)
        let status = await $session.withValue(session) { await body() }
        return (status, session)
    }

    /// Whether `fd` is a terminal (never inside a capturing session).
    static func isTerminal(_ fd: Int32) -> Bool { session == nil && isatty(fd) == 1 }

    /// File descriptor 1 when standard output is the process's own; nil when a session
    /// captures it (then write through ``writeBytes(_:to:)``).
    static var standardOutputDescriptor: Int32? { session == nil ? 1 : nil }

    /// Whether the process ends with the command it runs. Then nothing needs freeing; a
    /// capturing session runs many commands in one process, and each frees what it opened.
    static var processEndsWithCommand: Bool { session == nil }

    /// The raw arguments, rejecting any that are not valid UTF-8 instead of repairing them
    /// (which would silently change a title or a path).
    static func arguments() -> Result<[String], CLIError> {
        var out: [String] = []
        for n in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[n] else { continue }
            guard let s = String(validatingCString: raw) else {
                return .failure(
                    CLIError(usage: "argument \(n) is not valid UTF-8 text", hint: "Pass text encoded as UTF-8"))
            }
            out.append(s)
        }
        return .success(out)
    }

    static func write(_ text: String, to fd: Int32) { writeBytes(Array(text.utf8), to: fd) }

    /// Writes every byte (a broken pipe ends it quietly).
    static func writeBytes(_ bytes: [UInt8], to fd: Int32) { _ = writeAll(bytes, to: fd) }

    /// Writes every byte; the error's description when a write failed (a closed pipe, a full disk).
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        if let session, session.append(bytes, to: fd) { return nil }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            done += n
        }
        return nil
    }

    /// Human text on stdout, control characters shown visibly (``TerminalText``).
    static func out(_ text: String) { write(TerminalText.escaped(text), to: 1) }
    /// JSON and other exact output on stdout.
    static func outExact(_ text: String) { write(text, to: 1) }
    /// Human text on stderr, control characters shown visibly.
    static func err(_ text: String) { write(TerminalText.escaped(text), to: 2) }
    /// Human text with colours on stdout (colours only on a colour terminal).
    static func out(_ text: Styled) { write(text.rendered(colour: colours(1)), to: 1) }
    /// Human text with colours on stderr (colours only on a colour terminal).
    static func err(_ text: Styled) { write(text.rendered(colour: colours(2)), to: 2) }
    /// A warning on stderr: `warning:` in yellow on a colour terminal, then the text.
    static func warn(_ text: String) { err("\("warning:", .yellow) \(text)\n" as Styled) }
    /// Redraws the one progress line on stderr (a terminal only): the line is cleared with
    /// an escape sequence of ours, the text itself is escaped.
    static func progress(_ text: String) { write("\r\u{1B}[K" + TerminalText.escaped(text), to: 2) }
    /// Clears the progress line.
    static func clearProgress() { write("\r\u{1B}[K", to: 2) }

    static func environment(_ name: String) -> String? {
        if let session { return session.environment[name] }
        return getenv(name).map { String(cString: $0) }
    }

    /// The whole environment (credentials are looked up by the library, never printed).
    static func environmentDictionary() -> [String: String] {
        if let session { return session.environment }
        var result: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { result[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return result
    }

    /// Progress only when a person watches: stderr and stdout both a terminal that is not
    /// `dumb` (output piped to a script or a file means no one reads a redrawn line).
    static var showsProgress: Bool { isTerminal(2) && isTerminal(1) && environment("TERM") != "dumb" }

    /// Whether stdout is a terminal (binary output is refused there: it would garble it).
    static var stdoutIsTerminal: Bool { isTerminal(1) }

    /// Colour on `fd` only when it is a terminal that is not `dumb` and `NO_COLOR` is unset
    /// or empty (https://no-color.org).
    static func colours(_ fd: Int32) -> Bool {
        isTerminal(fd) && environment("TERM") != "dumb" && (environment("NO_COLOR") ?? "").isEmpty
    }

    /// The width to lay text out for: the terminal's, else `$COLUMNS`, else 80.
    static var columns: Int { columns(1) }

    /// The width `list` fits its rows to: the terminal's or `$COLUMNS`; piped without
    /// `$COLUMNS`, titles are kept whole (a script may look for them).
    static var listColumns: Int {
        isTerminal(1) || environment("COLUMNS") != nil ? columns : Int.max / 2
    }

    /// The width of the terminal on `fd`, else `$COLUMNS`, else 80.
    static func columns(_ fd: Int32) -> Int {
        var size = winsize()
        if isTerminal(fd), ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 20 { return Int(size.ws_col) }
        if let text = environment("COLUMNS"), let n = Int(text), n >= 20 { return n }
        return 80
    }

    /// Seconds since 1970 as local wall-clock fields, honouring `TZ` (POSIX rules included).
    static func localTime(_ seconds: Int64) -> (
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    ) {
        var t = time_t(seconds)
        var parts = tm()
        localtime_r(&t, &parts)
        return (
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
            Int(parts.tm_sec)
        )
    }

    /// A clock that only goes forward, for rates and time left.
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Now, in milliseconds since 1970, for "2 h ago".
    static func nowMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Reads all of standard input, or nil when it is not valid UTF-8.
    static func readStandardInput() -> String? {
        if let session { return String(validating: session.standardInput, as: UTF8.self) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func exit(_ code: Int32) -> Never { systemExit(code) }

    /// Ignore SIGPIPE so `aisync list | head` ends quietly instead of dying mid-write.
    static func ignoreBrokenPipe() { signal(SIGPIPE, SIG_IGN) }

    /// Ctrl-C (SIGINT) or SIGTERM cancels `task` instead of killing the process, so a push or
    /// pull stops between two writes and says so (exit 130). A second signal exits at once:
    /// every write is crash-safe, so that loses nothing either. Keep the returned sources for
    /// the life of the process.
    static func cancelOnInterrupt<T>(_ task: Task<T, Never>) -> [any DispatchSourceSignal] {
        let interrupts = InterruptCount()
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if interrupts.count.add(1, ordering: .relaxed).newValue > 1 { systemExit(ExitCode.cancelled) }
                task.cancel()
            }
            source.resume()
            return source
        }
    }
}

/// How many interrupts arrived (the second one exits at once).
private final class InterruptCount: Sendable {
    let count = Atomic<Int>(0)
}

#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
    private func systemExit(_ code: Int32) -> Never { exit(code) }
#endif

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Every libc call the command line makes: argv, output streams, terminals, exit.
enum CLIPlatform {
    /// The raw arguments, rejecting any that are not valid UTF-8 instead of repairing them
    /// (which would silently change a title or a path).
    static func arguments() -> Result<[String], CLIError> {
        var out: [String] = []
        for n in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[n] else { continue }
            guard let s = String(validatingCString: raw) else {
                return .failure(CLIError(usage: "argument \(n) is not valid UTF-8 text", hint: "Pass text encoded as UTF-8"))
            }
            out.append(s)
        }
        return .success(out)
    }

    static func write(_ text: String, to fd: Int32) { writeBytes(Array(text.utf8), to: fd) }

    /// Writes every byte (a broken pipe ends it quietly).
    static func writeBytes(_ bytes: [UInt8], to fd: Int32) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 { if errno == EINTR { continue }; return }
            done += n
        }
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

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// The whole environment (credentials are looked up by the library, never printed).
    static func environmentDictionary() -> [String: String] {
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
    static var showsProgress: Bool { isatty(2) == 1 && isatty(1) == 1 && environment("TERM") != "dumb" }

    /// Whether stdout is a terminal (binary output is refused there: it would garble it).
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }

    /// Colour on `fd` only when it is a terminal that is not `dumb` and `NO_COLOR` is unset
    /// or empty (https://no-color.org).
    static func colours(_ fd: Int32) -> Bool {
        isatty(fd) == 1 && environment("TERM") != "dumb" && (environment("NO_COLOR") ?? "").isEmpty
    }

    /// The width to lay text out for: the terminal's, else `$COLUMNS`, else 80.
    static var columns: Int { columns(1) }

    /// The width `list` fits its rows to: the terminal's or `$COLUMNS`; piped without
    /// `$COLUMNS`, titles are kept whole (a script may look for them).
    static var listColumns: Int {
        isatty(1) == 1 || environment("COLUMNS") != nil ? columns : Int.max / 2
    }

    /// The width of the terminal on `fd`, else `$COLUMNS`, else 80.
    static func columns(_ fd: Int32) -> Int {
        var size = winsize()
        if isatty(fd) == 1, ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 20 { return Int(size.ws_col) }
        if let text = environment("COLUMNS"), let n = Int(text), n >= 20 { return n }
        return 80
    }

    /// Seconds since 1970 as local wall-clock fields, honouring `TZ` (POSIX rules included).
    static func localTime(_ seconds: Int64) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        var t = time_t(seconds)
        var parts = tm()
        localtime_r(&t, &parts)
        return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min))
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
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
            if n < 0 { if errno == EINTR { continue }; break }
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func exit(_ code: Int32) -> Never { systemExit(code) }

    /// Ignore SIGPIPE so `aisync list | head` ends quietly instead of dying mid-write.
    static func ignoreBrokenPipe() { signal(SIGPIPE, SIG_IGN) }

    /// glibc's allocator, tuned for a process that works a batch at a time: one arena (every
    /// request runs on a thread of its own, and each new thread's arena keeps the garbage
    /// of its batch), and large blocks always mapped on their own, so a freed 4 MB segment
    /// goes back to the system instead of fragmenting the heap. A pull of 100,000 chats
    /// peaked at 89 MB without this and 72 MB with it (issue 11). A no-op elsewhere.
    static func tuneAllocator() {
        #if canImport(Glibc)
        // Looked up at run time: Glibc's module map leaves out malloc.h.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        typealias Option = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Option.self)
        let arenaMax: Int32 = -8, mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1
        _ = mallopt(arenaMax, 1)
        _ = mallopt(mmapThreshold, 256 << 10)
        _ = mallopt(trimThreshold, 1 << 20)
        #endif
    }

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
import Foundation
import Synchronization

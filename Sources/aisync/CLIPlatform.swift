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

    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { systemWrite(fd, $0.baseAddress! + done, $0.count - done) }
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

    /// Progress and colour only on a real terminal that is not `dumb`.
    static var stderrIsInteractive: Bool { isatty(2) == 1 && environment("TERM") != "dumb" }

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

    /// On Linux, Foundation's URLSession creates a URL cache and a cookie folder under
    /// `~/.cache` and `~/.local/share` as soon as any session configuration exists, even an
    /// ephemeral one with both turned off. Private chats must not leave traces outside the
    /// store, so the command line points those folders into the store (they stay empty).
    static func keepFoundationFiles(in directory: String) {
        #if !canImport(Darwin)
        setenv("XDG_CACHE_HOME", "\(directory)/cache", 1)
        setenv("XDG_DATA_HOME", "\(directory)/data", 1)
        #endif
    }

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
import Foundation
import Synchronization

import AISync
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// End-to-end harness: runs the BUILT `aisync` executable with Foundation `Process`, the way a
/// user or a script would, and hands back its exit status and both output streams.
///
/// Output is captured through temp files rather than pipes, so a chatty child can never block
/// on a full pipe and concurrent launches never inherit each other's pipe ends.

/// What one run of a process gave back.
package struct CLIResult: Sendable, CustomStringConvertible {
    package var command: [String]
    package var exitCode: Int32
    /// True when the process died from a signal (then `exitCode` is the signal number).
    package var signaled: Bool
    package var timedOut: Bool
    package var stdoutData: Data
    package var stderrData: Data

    package var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    package var stderr: String { String(decoding: stderrData, as: UTF8.self) }
    /// Non-empty lines of stdout / stderr.
    package var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    package var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    /// stdout without its final newline.
    package var trimmedStdout: String { stdout.hasSuffix("\n") ? String(stdout.dropLast()) : stdout }
    package var succeeded: Bool { !signaled && !timedOut && exitCode == 0 }

    package var description: String {
        let status = timedOut ? "timed out" : signaled ? "killed by signal \(exitCode)" : "exit \(exitCode)"
        return
            "$ \(command.joined(separator: " "))\n→ \(status)\n--- stdout (\(stdoutData.count) bytes)\n\(stdout.prefix(4000))\n--- stderr (\(stderrData.count) bytes)\n\(stderr.prefix(4000))"
    }
}

/// A process started in the background (for concurrency and kill tests).
package final class CLIBackgroundProcess: Sendable {
    /// Foundation's Process is not Sendable; every use goes through this lock.
    private let process: Mutex<Process>
    package let stdoutPath: String
    package let stderrPath: String
    package let command: [String]
    package let pid: Int32

    package init(process: sending Process, stdoutPath: String, stderrPath: String, command: [String]) {
        pid = process.processIdentifier
        self.process = Mutex(process)
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
        self.command = command
    }

    package var isRunning: Bool { process.withLock { $0.isRunning } }

    /// Waits for the process (killing it after `timeout` seconds) and collects its output.
    package func wait(timeout: Double = 120) -> CLIResult {
        var timedOut = false
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            if Date() > deadline {
                timedOut = true
                kill(pid, SIGKILL)
                break
            }
            usleep(2_000)
        }
        let (status, signaled) = process.withLock { p -> (Int32, Bool) in
            p.waitUntilExit()
            return (p.terminationStatus, p.terminationReason == .uncaughtSignal)
        }
        let out = FileManager.default.contents(atPath: stdoutPath) ?? Data()
        let err = FileManager.default.contents(atPath: stderrPath) ?? Data()
        try? FileManager.default.removeItem(atPath: stdoutPath)
        try? FileManager.default.removeItem(atPath: stderrPath)
        return CLIResult(
            command: command, exitCode: status,
            signaled: signaled, timedOut: timedOut,
            stdoutData: out, stderrData: err)
    }

    /// What the process has written to stdout so far.
    package func currentStdout() -> String {
        String(decoding: FileManager.default.contents(atPath: stdoutPath) ?? Data(), as: UTF8.self)
    }
}

package enum CLIHarness {
    // MARK: Locations

    /// The package root: the nearest directory above this file that holds Package.swift.
    package static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
            url.deleteLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath
    }()

    /// Where the test bundle runs from: on Linux the `…PackageTests.xctest` executable in the
    /// build directory, on macOS the `.xctest` bundle (also inside the build directory).
    package static var testBundleDirectories: [String] {
        var paths: [String] = []
        if let first = ProcessInfo.processInfo.arguments.first { paths.append(first) }
        if let exe = Bundle.main.executablePath { paths.append(exe) }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") { paths.append(bundle.bundlePath) }
        var dirs: [String] = []
        for p in paths {
            // The nearest `.xctest` (the Linux test executable, or the macOS bundle that holds
            // it) sits in the build directory, next to the `aisync` it was built with.
            var url = URL(fileURLWithPath: p).resolvingSymlinksInPath()
            while url.path != "/" && !url.path.isEmpty {
                if url.pathExtension == "xctest" {
                    dirs.append(url.deletingLastPathComponent().path)
                    break
                }
                url.deleteLastPathComponent()
            }
        }
        return dirs
    }

    /// The `aisync` executable under test: $AISYNC_BIN, else the sibling of the running test
    /// bundle (the build that produced these tests), else `<package>/.build/debug/aisync`.
    package static let executable: String = {
        if let env = ProcessInfo.processInfo.environment["AISYNC_BIN"], !env.isEmpty { return env }
        var candidates = testBundleDirectories.map { "\($0)/aisync" }
        candidates.append("\(packageRoot)/.build/debug/aisync")
        for c in candidates where isExecutableFile(c) { return c }
        return candidates.first ?? "\(packageRoot)/.build/debug/aisync"
    }()

    /// `aisync-bench`, built beside the `aisync` under test: it fills stores for tests that
    /// need many records.
    package static var benchExecutable: String {
        URL(fileURLWithPath: executable).deletingLastPathComponent().path + "/aisync-bench"
    }

    /// Adds `count` generated chats to the store at `store` (`extra`: `--answer-bytes B`,
    /// `--renames K`), as the benchmarks do.
    package static func generate(_ count: Int, store: String, _ extra: [String] = []) -> CLIResult {
        let arguments = ["generate", String(count), "--store", store] + extra
        return runProcess(benchExecutable, arguments, display: ["aisync-bench"] + arguments)
    }

    package static func isExecutableFile(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && !isDir.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }

    /// A private scratch directory for captured output, one per test process.
    package static let scratch: String = {
        let path = "\(NSTemporaryDirectory())/aisync-cli-harness-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { CLIHarness.removeScratch() }
        return path
    }()

    /// Run at exit: the captured-output files are deleted as they are read, so this only
    /// removes the (by then empty) directory.
    package static func removeScratch() { rmdir(scratch) }

    package static var isRoot: Bool { geteuid() == 0 }

    /// Finds a program on PATH (or in the usual system directories).
    package static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":").map(String.init) + [
            "/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin",
        ] {
            let candidate = "\(dir)/\(name)"
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    // MARK: Environment

    /// The environment every child gets: the test runner's, minus anything that could point
    /// aisync at a real store, with HOME moved somewhere empty and TERM=dumb (no progress).
    package static func baseEnvironment() -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["AISYNC_HOME"] = nil
        env["AISYNC_BIN"] = nil
        env["HOME"] = "\(scratch)/no-home"
        env["TERM"] = "dumb"
        return env
    }

    // MARK: Running

    package enum StoreVia { case option, environment }

    /// The arguments and environment of one run, in-process or as a child: the store goes in
    /// as `--store DIR` (or `AISYNC_HOME` when asked, or when the arguments end in `--`), and
    /// `environment` is laid over `baseEnvironment()`.
    package static func invocation(
        _ arguments: [String], store: String?, via: StoreVia, environment: [String: String]
    ) -> (arguments: [String], environment: [String: String]) {
        var args = arguments
        var env = baseEnvironment()
        if let store {
            if via == .environment || args.contains("--") {
                env["AISYNC_HOME"] = store
            } else {
                args += ["--store", store]
            }
        }
        for (k, v) in environment { env[k] = v }
        return (args, env)
    }

    /// Runs `aisync ARGUMENTS` against `store` (with `--store DIR` appended, or `AISYNC_HOME`),
    /// feeding `stdin`, and returns its exit status and output.
    /// `asNobody` runs it as uid/gid 65534 through setpriv (to test permissions as root).
    package static func run(
        _ arguments: [String], store: String? = nil, via: StoreVia = .option, stdin: Data? = nil,
        environment: [String: String] = [:], asNobody: Bool = false, timeout: Double = 120
    ) -> CLIResult {
        var (args, env) = invocation(arguments, store: store, via: via, environment: environment)
        var exe = executable
        if asNobody {
            args = ["--reuid=65534", "--regid=65534", "--clear-groups", executable] + args
            exe = which("setpriv") ?? "/usr/bin/setpriv"
        }
        return runProcess(exe, args, environment: env, stdin: stdin, timeout: timeout, display: ["aisync"] + arguments)
    }

    /// Runs a `/bin/sh -c` script with `$AISYNC` set to the executable under test.
    package static func shell(
        _ script: String, environment: [String: String] = [:], stdin: Data? = nil, timeout: Double = 120
    )
        -> CLIResult
    {
        var env = baseEnvironment()
        env["AISYNC"] = executable
        for (k, v) in environment { env[k] = v }
        return runProcess(
            "/bin/sh", ["-c", script], environment: env, stdin: stdin, timeout: timeout, display: ["sh", "-c", script])
    }

    /// Runs any program to completion.
    package static func runProcess(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        stdin: Data? = nil, timeout: Double = 120, display: [String]? = nil
    ) -> CLIResult {
        let command = display ?? ([executable] + arguments)
        do {
            let bg = try start(
                executable, arguments, environment: environment ?? baseEnvironment(), stdin: stdin, display: command)
            return bg.wait(timeout: timeout)
        } catch {
            return CLIResult(
                command: command, exitCode: 127, signaled: false, timedOut: false, stdoutData: Data(),
                stderrData: Data("harness: cannot start \(executable): \(error)".utf8))
        }
    }

    /// Starts `aisync ARGUMENTS` in the background.
    package static func startAISync(_ arguments: [String], store: String, environment: [String: String] = [:]) throws
        -> CLIBackgroundProcess
    {
        var env = baseEnvironment()
        for (k, v) in environment { env[k] = v }
        return try start(
            executable, arguments + ["--store", store], environment: env, stdin: nil, display: ["aisync"] + arguments)
    }

    /// Starts a `/bin/sh -c` script in the background, with `$AISYNC` set.
    package static func startShell(_ script: String, environment: [String: String] = [:]) throws -> CLIBackgroundProcess
    {
        var env = baseEnvironment()
        env["AISYNC"] = executable
        for (k, v) in environment { env[k] = v }
        return try start("/bin/sh", ["-c", script], environment: env, stdin: nil, display: ["sh", "-c", script])
    }

    package static func start(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: Data?,
        display: [String]
    ) throws -> CLIBackgroundProcess {
        let token = UUID().uuidString
        let outPath = "\(scratch)/\(token).out"
        let errPath = "\(scratch)/\(token).err"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        guard let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath) else {
            throw CocoaError(.fileWriteUnknown)
        }
        process.standardOutput = out
        process.standardError = err
        var inHandle: FileHandle?
        if let stdin {
            let inPath = "\(scratch)/\(token).in"
            FileManager.default.createFile(atPath: inPath, contents: stdin)
            inHandle = FileHandle(forReadingAtPath: inPath)
            process.standardInput = inHandle
            defer { try? FileManager.default.removeItem(atPath: inPath) }
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        defer {
            try? out.close()
            try? err.close()
            try? inHandle?.close()
        }
        try process.run()
        return CLIBackgroundProcess(process: process, stdoutPath: outPath, stderrPath: errPath, command: display)
    }

    // MARK: Temp directories and stores

    /// Creates a fresh directory (mode 0755, so a setpriv'd `nobody` can traverse it), runs
    /// `body` with its path, then removes it (after making everything writable again).
    package static func withTemporaryDirectory<T>(_ body: (String) throws -> T) rethrows -> T {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        return try body(dir)
    }

    package static func makeTemporaryDirectory() -> String {
        var template = Array("\(NSTemporaryDirectory())/aisync-cli-test-XXXXXX".utf8CString)
        let path: String = template.withUnsafeMutableBufferPointer { buf in
            guard let p = mkdtemp(buf.baseAddress!) else {
                return "\(NSTemporaryDirectory())/aisync-cli-test-\(UUID().uuidString)"
            }
            return String(cString: p)
        }
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
        return (path as NSString).standardizingPath
    }

    package static func removeTree(_ path: String) {
        _ = runProcess("/bin/chmod", ["-R", "u+w", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A new, initialized store in a new temp directory. Remove it with `store.remove()`
    /// (use `defer`).
    ///
    /// Tests create stores at the top level of the test function on purpose, not through a
    /// `withStore { store in ... }` closure: with Swift 6.3.1, a closure written inside an
    /// `#expect(...)` that itself sits in another closure can share its discriminator with a
    /// later closure of the same type, which then silently runs the wrong code.
    package static func makeStore(deviceName: String = "test-device", sourceLocation: SourceLocation = #_sourceLocation)
        throws
        -> CLIStore
    {
        let dir = makeTemporaryDirectory()
        let store = CLIStore(directory: dir, path: "\(dir)/store")
        let r = store.run(["init", "--name", deviceName])
        if r.exitCode != 0 { removeTree(dir) }
        try #require(r.exitCode == 0, "aisync init failed: \(r)", sourceLocation: sourceLocation)
        return store
    }
}

/// One store in a temp directory, and shortcuts to run aisync on it.
package struct CLIStore: Sendable {
    /// The temp directory (the store is `path`, inside it; put scratch files here).
    package let directory: String
    package let path: String

    package init(directory: String, path: String) {
        self.directory = directory
        self.path = path
    }

    /// Deletes the temp directory and everything in it.
    package func remove() { CLIHarness.removeTree(directory) }

    package var configPath: String { "\(path)/config.json" }
    package var journalPath: String { "\(path)/journal.jsonl" }
    package var objectsPath: String { "\(path)/objects" }
    package var indexPath: String { "\(path)/index" }

    package func run(
        _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], asNobody: Bool = false,
        via: CLIHarness.StoreVia = .option
    ) -> CLIResult {
        CLIHarness.run(arguments, store: path, via: via, stdin: stdin, environment: environment, asNobody: asNobody)
    }

    package func run(_ arguments: String..., stdin: String? = nil) -> CLIResult {
        run(arguments, stdin: stdin.map { Data($0.utf8) })
    }

    /// Runs a command that must succeed and returns its stdout without the final newline.
    @discardableResult
    package func ok(_ arguments: [String], stdin: Data? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> String
    {
        let r = run(arguments, stdin: stdin)
        try #require(
            r.exitCode == 0 && !r.signaled && !r.timedOut, "expected success: \(r)", sourceLocation: sourceLocation)
        return r.trimmedStdout
    }

    /// Adds `count` generated chats with `aisync-bench generate`.
    package func generate(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = CLIHarness.generate(count, store: path)
        try #require(r.succeeded, "expected success: \(r)", sourceLocation: sourceLocation)
    }

    /// `list --json --deleted`, raw (for before/after comparisons).
    package func listSnapshot() -> String { run(["list", "--json", "--deleted"]).stdout }

    package func journalBytes() -> Data { FileManager.default.contents(atPath: journalPath) ?? Data() }
    package func journalLines() -> [String] {
        String(decoding: journalBytes(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// `list --json` decoded.
    package func list(_ extra: [String] = []) throws -> [[String: Any]] {
        let r = run(["list", "--json"] + extra)
        try #require(r.exitCode == 0, "list failed: \(r)")
        return try CLIJSON.array(r)
    }

    /// `show ID --json` decoded.
    package func show(_ id: String) throws -> [String: Any] {
        let r = run(["show", id, "--json"])
        try #require(r.exitCode == 0, "show failed: \(r)")
        return try CLIJSON.object(r)
    }

    /// The path of the object with this sha256.
    package func objectPath(_ sha256: String) -> String { "\(objectsPath)/\(sha256.prefix(2))/\(sha256)" }

    /// The body sha256 of the newest journal line of `record`.
    /// The newest object a record's journal lines name: a large value's `ref` (records v2),
    /// or an aisync 1 line's whole `body`.
    package func latestBodyHash(of record: String) throws -> String? {
        for line in journalLines().reversed() {
            let obj = try CLIJSON.parseObject(line)
            guard obj["record"] as? String == record else { continue }
            if let body = obj["body"] as? String { return body }
            for op in (obj["ops"] as? [[String: Any]] ?? []).reversed() {
                if let ref = op["ref"] as? String { return ref }
            }
        }
        return nil
    }
}

// MARK: - JSON

package enum CLIJSON {
    package struct NotJSON: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    /// Checks that stdout is exactly one JSON document on one line (our canonical output ends
    /// with a single "\n"), parses it with both JSONSerialization and aisync's own parser.
    package static func document(_ r: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        #expect(r.stdout.hasSuffix("\n"), "JSON output should end with a newline: \(r)", sourceLocation: sourceLocation)
        #expect(
            r.trimmedStdout.split(separator: "\n", omittingEmptySubsequences: false).count == 1,
            "JSON output should be exactly one line: \(r)", sourceLocation: sourceLocation)
        do { _ = try JSONParser.parse(Array(r.trimmedStdout.utf8)) } catch {
            throw NotJSON(description: "aisync's JSONParser rejects the output (\(error)): \(r)")
        }
        do { return try JSONSerialization.jsonObject(with: r.stdoutData, options: [.fragmentsAllowed]) } catch {
            throw NotJSON(description: "JSONSerialization rejects the output (\(error)): \(r)")
        }
    }

    package static func array(_ r: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String:
        Any]]
    {
        let value = try document(r, sourceLocation: sourceLocation)
        guard let a = value as? [Any] else { throw NotJSON(description: "expected a JSON array: \(r)") }
        return try a.map { item in
            guard let o = item as? [String: Any] else {
                throw NotJSON(description: "expected objects in the array: \(r)")
            }
            return o
        }
    }

    package static func object(_ r: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String:
        Any]
    {
        let value = try document(r, sourceLocation: sourceLocation)
        guard let o = value as? [String: Any] else { throw NotJSON(description: "expected a JSON object: \(r)") }
        return o
    }

    package static func parseObject(_ text: String) throws -> [String: Any] {
        guard let o = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw NotJSON(description: "not a JSON object: \(text)")
        }
        return o
    }
}

// MARK: - Schema validation (scripts/validate_json.py)

/// Result of running scripts/validate_json.py.
package struct SchemaCheck: CustomStringConvertible {
    package var passed: Bool
    package var output: String
    package var description: String { output }
}

package enum SchemaValidator {
    package static var script: String { "\(CLIHarness.packageRoot)/scripts/validate_json.py" }

    /// Fails (never skips) when python3 or its jsonschema package is missing.
    package static func requireAvailable(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = CLIHarness.runProcess("/usr/bin/env", ["python3", "-c", "import jsonschema, referencing; print('ok')"])
        try #require(
            r.exitCode == 0 && r.stdout.contains("ok"),
            "python3 with the jsonschema package (>= 4.18) is required for schema validation; run scripts/test.sh or `pip install 'jsonschema>=4.18'`: \(r)",
            sourceLocation: sourceLocation)
        try #require(
            FileManager.default.fileExists(atPath: script), "missing \(script)", sourceLocation: sourceLocation)
    }

    package static func validate(_ schema: String, files: [String], canonical: Bool = false, jsonl: Bool = false)
        -> SchemaCheck
    {
        var args = [script]
        if canonical { args.append("--canonical") }
        if jsonl { args.append("--jsonl") }
        args.append(schema)
        args += files
        let r = CLIHarness.runProcess("/usr/bin/env", ["python3"] + args)
        return SchemaCheck(
            passed: r.exitCode == 0 && !r.signaled,
            output:
                "validate_json.py \(args.dropFirst().joined(separator: " ")) → \(r.exitCode)\n\(r.stdout)\(r.stderr)")
    }

    package static func validate(_ schema: String, stdin: Data, canonical: Bool = false, jsonl: Bool = false)
        -> SchemaCheck
    {
        var args = [script]
        if canonical { args.append("--canonical") }
        if jsonl { args.append("--jsonl") }
        args += [schema, "-"]
        let r = CLIHarness.runProcess("/usr/bin/env", ["python3"] + args, stdin: stdin)
        return SchemaCheck(
            passed: r.exitCode == 0 && !r.signaled,
            output:
                "validate_json.py \(args.dropFirst().joined(separator: " ")) → \(r.exitCode)\n\(r.stdout)\(r.stderr)\ninput: \(String(decoding: stdin.prefix(2000), as: UTF8.self))"
        )
    }
}

// MARK: - Expectations shared by the suites

package enum CLIExpect {
    package static let crashMarkers = [
        "Fatal error", "Stack dump", "Backtrace", "*** Signal", "Current stack trace", "Illegal instruction",
        "Segmentation fault", "Assertion failed", "Precondition failed",
    ]

    /// A failed command: the right exit code, exactly one line on stderr starting with
    /// "Error: ", nothing on stdout, and no crash output.
    package static func cleanError(
        _ r: CLIResult, code: Int32, mentioning needles: [String] = [], stdoutAllowed: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!r.signaled && !r.timedOut, "the process crashed or hung: \(r)", sourceLocation: sourceLocation)
        #expect(r.exitCode == code, "expected exit \(code): \(r)", sourceLocation: sourceLocation)
        if !stdoutAllowed {
            #expect(
                r.stdoutData.isEmpty, "expected nothing on stdout for an error: \(r)", sourceLocation: sourceLocation)
        }
        #expect(r.stderrLines.count == 1, "expected exactly one line on stderr: \(r)", sourceLocation: sourceLocation)
        #expect(
            r.stderr.hasPrefix("Error: "), "stderr should start with \"Error: \": \(r)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasSuffix("\n"), "stderr should end with a newline: \(r)", sourceLocation: sourceLocation)
        noCrash(r, sourceLocation: sourceLocation)
        for needle in needles {
            #expect(
                r.stderr.localizedCaseInsensitiveContains(needle), "stderr should mention \"\(needle)\": \(r)",
                sourceLocation: sourceLocation)
        }
    }

    package static func noCrash(_ r: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for marker in crashMarkers {
            #expect(
                !r.stderr.contains(marker) && !r.stdout.contains(marker), "crash output (\(marker)): \(r)",
                sourceLocation: sourceLocation)
        }
        #expect(!r.signaled, "killed by a signal: \(r)", sourceLocation: sourceLocation)
    }

    /// A successful command with nothing on stderr.
    package static func success(_ r: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.exitCode == 0 && !r.signaled && !r.timedOut, "expected success: \(r)", sourceLocation: sourceLocation)
        #expect(r.stderrData.isEmpty, "expected nothing on stderr: \(r)", sourceLocation: sourceLocation)
    }

    package static func matches(_ text: String, _ pattern: String) -> Bool {
        text.range(of: pattern, options: .regularExpression) != nil
    }
}

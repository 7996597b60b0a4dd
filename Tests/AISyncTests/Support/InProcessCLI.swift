import AISyncCLI
import Foundation
import Testing

/// In-process runs of the command line: ``CommandLineTool/run(_:)`` inside a capturing session,
/// with the environment a child process would get. The same ``CLIResult`` as the end-to-end
/// harness, in a fraction of the time; tests of signals, terminals, permissions as another
/// user and crash safety still run the built binary (``CLIHarness/run``).
extension CLIHarness {
    /// Runs `aisync ARGUMENTS` in-process against `store` (`--store DIR` appended, or
    /// `AISYNC_HOME`), feeding `stdin`.
    static func invoke(
        _ arguments: [String], store: String? = nil, via: StoreVia = .option, stdin: Data? = nil,
        environment: [String: String] = [:]
    ) async -> CLIResult {
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
        let final = args
        let (status, session) = await CLIPlatform.capturing(environment: env, standardInput: Array(stdin ?? Data())) {
            await CommandLineTool.run(final)
        }
        return CLIResult(
            command: ["aisync"] + arguments, exitCode: status, signaled: false, timedOut: false,
            stdoutData: Data(session.standardOutput), stderrData: Data(session.standardError))
    }
}

extension CLIStore {
    /// Runs `aisync ARGUMENTS --store DIR` in-process.
    func invoke(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) async -> CLIResult {
        await CLIHarness.invoke(arguments, store: path, stdin: stdin, environment: environment)
    }

    /// Runs a command in-process that must succeed; returns stdout without its final newline.
    @discardableResult
    func invokeOK(_ arguments: [String], stdin: Data? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> String
    {
        let r = await invoke(arguments, stdin: stdin)
        try #require(r.succeeded, "expected success: \(r)", sourceLocation: sourceLocation)
        return r.trimmedStdout
    }
}

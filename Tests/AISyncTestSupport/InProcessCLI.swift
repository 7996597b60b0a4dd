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
    package static func invoke(
        _ arguments: [String], store: String? = nil, via: StoreVia = .option, stdin: Data? = nil,
        environment: [String: String] = [:]
    ) async -> CLIResult {
        let (args, env) = invocation(arguments, store: store, via: via, environment: environment)
        let (status, session) = await CLIPlatform.capturing(environment: env, standardInput: Array(stdin ?? Data())) {
            await CommandLineTool.run(args)
        }
        return CLIResult(
            command: ["aisync"] + arguments, exitCode: status, signaled: false, timedOut: false,
            stdoutData: Data(session.standardOutput), stderrData: Data(session.standardError))
    }
}

extension CLIStore {
    /// Runs `aisync ARGUMENTS --store DIR` in-process.
    package func invoke(
        _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
        via: CLIHarness.StoreVia = .option
    ) async -> CLIResult {
        await CLIHarness.invoke(arguments, store: path, via: via, stdin: stdin, environment: environment)
    }

    /// `list --json --deleted`, in-process: compared before and after to show a store unchanged.
    package func listSnapshotInProcess() async -> String {
        await invoke(["list", "--json", "--deleted"]).stdout
    }

    /// Runs a command in-process that must succeed; returns stdout without its final newline.
    @discardableResult
    package func invokeOK(_ arguments: [String], stdin: Data? = nil, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> String
    {
        let r = await invoke(arguments, stdin: stdin)
        try #require(r.succeeded, "expected success: \(r)", sourceLocation: sourceLocation)
        return r.trimmedStdout
    }
}

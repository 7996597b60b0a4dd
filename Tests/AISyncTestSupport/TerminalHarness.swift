import Foundation
import Testing

/// A real pseudo-terminal for CLI tests: a tmux server of its own (`-L`), so a test never
/// touches the user's sessions. Debian's tmux; scripts/test.sh installs it.
package struct Terminal {
    package let socket = "aisync-test-\(UUID().uuidString.prefix(8))"

    package init() {}

    package static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    package func tmux(_ arguments: [String]) -> CLIResult {
        CLIHarness.runProcess(
            "/usr/bin/env", ["tmux", "-L", socket] + arguments, environment: CLIHarness.baseEnvironment())
    }

    /// Starts `command` (a shell line) in a `columns`-wide window. The first command starts
    /// tmux's server, which keeps every fd it inherits, among them the one Foundation's
    /// `Process` watches to see its child exit: it is started through Python's subprocess
    /// with `close_fds`, or waiting for it never ends.
    package func start(_ command: String, columns: Int = 160) throws {
        let launcher =
            "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True).returncode)"
        let r = CLIHarness.runProcess(
            "/usr/bin/env",
            [
                "python3", "-c", launcher, "tmux", "-L", socket, "new-session", "-d", "-s", "t", "-x", "\(columns)",
                "-y", "40", command,
            ],
            environment: CLIHarness.baseEnvironment())
        try #require(
            r.succeeded, "tmux could not start (is Debian's tmux installed? scripts/test.sh installs it): \(r)")
    }

    /// Runs `script` on the terminal and records every byte it writes there into `raw` (tmux's
    /// pipe-pane): the script waits for a key until the recording runs, so nothing is missed.
    package func record(_ script: String, into raw: String, columns: Int = 100) throws {
        try start("read go; \(script); echo; echo ALL-DONE; sleep 120", columns: columns)
        let piped = tmux(["pipe-pane", "-o", "-t", "t", "cat >> \(Self.quoted(raw))"])
        try #require(piped.succeeded, "\(piped)")
        _ = tmux(["send-keys", "-t", "t", "Enter"])
        _ = try waitFor("ALL-DONE")
        // pipe-pane copies asynchronously: wait until the recording has the end too.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline,
            !(FileManager.default.contents(atPath: raw).map { $0.range(of: Data("ALL-DONE".utf8)) != nil } ?? false)
        {
            usleep(20_000)
        }
    }

    package func screen() -> String { tmux(["capture-pane", "-p", "-t", "t"]).stdout }

    package func type(_ text: String) {
        _ = tmux(["send-keys", "-t", "t", "-l", text])
        _ = tmux(["send-keys", "-t", "t", "Enter"])
    }

    /// Waits until the screen shows `text` `times` times (polling, at most 120 s); returns the screen.
    package func waitFor(_ text: String, times: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> String
    {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let shown = screen()
            if shown.components(separatedBy: text).count > times { return shown }
            usleep(50_000)
        }
        let shown = screen()
        try #require(
            shown.components(separatedBy: text).count > times,
            "the terminal never showed \"\(text)\" \(times) time(s):\n\(shown)",
            sourceLocation: sourceLocation)
        return shown
    }

    package func stop() { _ = tmux(["kill-server"]) }
}

import Foundation
import Testing

/// What a suite needs beyond the toolchain, as tags (`swift test --filter` by suite, or read
/// in the test report) and as conditions, so a bare `swift test` on a machine with only Swift
/// runs what needs nothing and reports the rest as not run, naming what is missing.
///
/// `scripts/test.sh` installs and starts everything and sets `AISYNC_TEST_ALL=1`: then no
/// condition holds a suite back, so a server or tool that failed to start fails its tests
/// instead of hiding them.
extension Tag {
    /// Needs the loopback servers `scripts/servers.sh` starts (Apache, rclone, nginx, WsgiDAV,
    /// lighttpd, SeaweedFS, moto).
    @Tag package static var servers: Tag
    /// Needs Python 3 with the packages `scripts/test.sh` installs (jsonschema, cryptography,
    /// html5lib) or the Python test servers in `scripts/`.
    @Tag package static var python: Tag
    /// Needs another program: tmux, epubcheck, Chromium, groff, setpriv.
    @Tag package static var tools: Tag
}

/// Whether what a suite needs is here.
package enum Requirement {
    /// `scripts/test.sh` runs everything: a missing requirement is a failure there.
    package static let runEverything = ProcessInfo.processInfo.environment["AISYNC_TEST_ALL"] == "1"

    /// The servers' variables are exported (scripts/servers.sh's env file).
    package static let servers =
        runEverything || !(ProcessInfo.processInfo.environment["AISYNC_TEST_APACHE_URL"] ?? "").isEmpty

    /// Python 3 with the packages most Python checks import (schemas, reference crypto).
    package static let python = pythonModules("jsonschema", "referencing", "cryptography")

    /// Python 3 can import every named module.
    package static func pythonModules(_ names: String...) -> Bool {
        runEverything
            || CLIHarness.runProcess("/usr/bin/env", ["python3", "-c", "import " + names.joined(separator: ", ")])
                .exitCode == 0
    }

    /// Every named program is on PATH (or is one of the files named by absolute path).
    package static func tools(_ names: String...) -> Bool {
        runEverything
            || names.allSatisfy {
                $0.hasPrefix("/") ? FileManager.default.fileExists(atPath: $0) : CLIHarness.which($0) != nil
            }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs only where the test servers run (always under scripts/test.sh).
    package static var needsServers: Self {
        .enabled(
            if: Requirement.servers,
            "needs the loopback test servers: run scripts/test.sh, or scripts/servers.sh start and source its env file")
    }

    /// Runs only where Python 3 has the test packages (always under scripts/test.sh).
    package static var needsPython: Self {
        .enabled(if: Requirement.python, "needs python3 with jsonschema and cryptography: run scripts/test.sh")
    }

    /// Runs only where Python 3 can import the named modules (always under scripts/test.sh).
    package static func needsPythonModules(_ names: String...) -> Self {
        .enabled(
            if: names.allSatisfy { Requirement.pythonModules($0) },
            "needs python3 with \(names.joined(separator: ", ")): run scripts/test.sh")
    }

    /// Runs only where the named programs are installed (always under scripts/test.sh).
    package static func needsTools(_ names: String...) -> Self {
        .enabled(
            if: names.allSatisfy { Requirement.tools($0) },
            "needs \(names.joined(separator: ", ")): run scripts/test.sh")
    }
}

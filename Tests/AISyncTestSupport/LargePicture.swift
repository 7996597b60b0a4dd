import Foundation
import Testing

/// Large pictures for transfer tests, and a way to tell that a process is sending one.
package enum LargePicture {
    /// A valid PNG of about `megabytes` MB (random hex in a text chunk), written by
    /// `scripts/make_png.py` into `directory`; returns its path. (Python, not Swift: a debug
    /// build of the test support takes half a minute over 200 MB.)
    package static func make(in directory: String, megabytes: Int) throws -> String {
        let path = "\(directory)/big.png"
        let r = CLIHarness.runProcess(
            "/usr/bin/env", ["python3", "\(CLIHarness.packageRoot)/scripts/make_png.py", path, String(megabytes)])
        try #require(r.exitCode == 0, "cannot make a PNG: \(r)")
        return path
    }

    /// Waits (up to 60 s, polling every 2 ms) until process `pid` has written `bytes` with
    /// write-like calls, sockets included (`wchar` in /proc/PID/io); false if it never did.
    package static func waitUntil(_ pid: Int32, hasWritten bytes: Int) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard let io = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return false }
            if let line = io.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") }),
                let written = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)), written >= bytes
            {
                return true
            }
            usleep(2_000)
        }
        return false
    }
}

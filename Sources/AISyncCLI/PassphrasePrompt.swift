import AISync

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The passphrase prompt: on the controlling terminal (`/dev/tty`, so it works with stdin and
/// stdout redirected), echo off, never on argv or in any file. A new passphrase is typed twice.
enum PassphrasePrompt {
    static let source: PassphraseSource = { (purpose: PassphrasePurpose) async throws(AISyncError) -> String in
        switch purpose {
        case .unlock(let remote):
            return try ask("Passphrase for remote \(remote): ", remote: remote)
        case .create(let remote), .change(let remote):
            let first = try ask("New passphrase for remote \(remote): ", remote: remote)
            let again = try ask("Type it again: ", remote: remote)
            guard first == again else {
                throw AISyncError.usage(
                    "the two passphrases differ", hint: "Run the command again and type the same passphrase twice")
            }
            return first
        }
    }

    private static func ask(_ prompt: String, remote: String) throws(AISyncError) -> String {
        // Only when a person is at the keyboard: a script with stdin redirected gets the error
        // naming AISYNC_PASSPHRASE instead of a prompt it cannot answer.
        let fd = CLIPlatform.isTerminal(0) ? open("/dev/tty", O_RDWR | O_CLOEXEC) : -1
        guard fd >= 0 else {
            throw AISyncError(
                .configuration, "remote \(remote) is encrypted and there is no terminal to ask for its passphrase",
                hint: "Set AISYNC_PASSPHRASE (and AISYNC_NEW_PASSPHRASE for a change)")
        }
        defer { close(fd) }
        var saved = termios()
        let isTerminal = tcgetattr(fd, &saved) == 0
        if isTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ICANON)
            _ = tcsetattr(fd, TCSAFLUSH, &quiet)
        }
        defer { if isTerminal { _ = tcsetattr(fd, TCSAFLUSH, &saved) } }
        CLIPlatform.write(prompt, to: fd)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 4096 {
            let n = read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == 10 || byte == 13 { break }
            line.append(byte)
        }
        CLIPlatform.write("\n", to: fd)
        guard let text = String(validating: line, as: UTF8.self) else {
            throw AISyncError.usage("the passphrase is not valid UTF-8 text")
        }
        return text
    }
}

import AISync

/// The one table from error codes to exit codes (sysexits.h), documented in the README.
enum ExitCode {
    static let success: Int32 = 0
    static let other: Int32 = 1
    static let usage: Int32 = 64
    static let damagedData: Int32 = 65
    static let notFound: Int32 = 66
    static let unavailable: Int32 = 69
    static let io: Int32 = 74
    static let temporary: Int32 = 75
    static let permission: Int32 = 77
    static let configuration: Int32 = 78
    static let cancelled: Int32 = 130
    static let wrongPassphrase: Int32 = 80
    static let tampered: Int32 = 81
    static let truncated: Int32 = 82
    static let misplaced: Int32 = 83
    static let replayed: Int32 = 84

    static func forCode(_ code: AISyncError.Code) -> Int32 {
        switch code {
        case .usage: usage
        case .damagedData: damagedData
        case .notFound: notFound
        case .unavailable: unavailable
        case .io: io
        case .temporary: temporary
        case .permission: permission
        case .configuration: configuration
        case .cancelled: cancelled
        case .wrongPassphrase: wrongPassphrase
        case .tampered: tampered
        case .truncated: truncated
        case .misplaced: misplaced
        case .replayed: replayed
        default: other
        }
    }
}

/// A command-line failure: the library's error, or a usage error found while parsing.
struct CLIError: Error {
    var error: AISyncError
    /// The command whose help to point at, for usage errors.
    var command: String?

    init(_ error: AISyncError, command: String? = nil) {
        self.error = error
        self.command = command
    }
    init(usage message: String, hint: String? = nil, command: String? = nil) {
        self.init(AISyncError(.usage, message, hint: hint), command: command)
    }
}

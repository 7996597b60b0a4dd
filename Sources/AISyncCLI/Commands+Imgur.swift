import AISync

/// `aisync imgur enable|disable|status`: images on Imgur (docs/DESIGN.md §7).
enum ImgurCommands {
    static let all: [any ParsableCommand.Type] = [Enable.self, Disable.self, Status.self]

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["imgur", "enable"], abstract: "Upload images to Imgur on push.",
            discussion:
                "The credential comes from the environment only: AISYNC_IMGUR_CLIENT_ID (anonymous uploads) or AISYNC_IMGUR_TOKEN (an account's OAuth access token). Running it again also retries images Imgur refused."
        )
        @Option(valueName: "URL", help: "Replace https://api.imgur.com (tests, proxies; also AISYNC_IMGUR_API).")
        var api: String?
        @Option(
            valueName: "imgur|remote|both",
            help:
                "imgur (default) or both: upload a shareable copy to Imgur, originals always on the remote too; remote: nothing to Imgur."
        )
        var images: StoreConfig.ImagePlacement = .imgur
        @Flag(help: "Upload pictures to Imgur even though a remote is encrypted (anyone with a link sees them).")
        var publicImages: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let (retried, warnings) = try await Context.call { () async throws(AISyncError) in
                try await store.enableImgur(
                    api: api, images: images, publicImages: publicImages,
                    environment: CLIPlatform.environmentDictionary())
            }
            if retried > 0 {
                CLIPlatform.err(
                    "note: \(retried == 1 ? "1 picture" : "\(retried) pictures") Imgur refused before will be tried again on the next push\n"
                )
            }
            for warning in warnings {
                switch warning {
                case .imgurEnabledWithoutCredential:
                    CLIPlatform.warn(
                        "set AISYNC_IMGUR_CLIENT_ID or AISYNC_IMGUR_TOKEN before pushing; until then images wait to be uploaded"
                    )
                case .imgurPausedForEncryptedRemote: break
                }
            }
            return ExitCode.success
        }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["imgur", "disable"], abstract: "Stop uploading images to Imgur (images already there stay).")

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            try await Context.call { () async throws(AISyncError) in try await store.disableImgur() }
            return ExitCode.success
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["imgur", "status"], abstract: "Uploads done, pending and failed, and the last rate-limit figures.")
        @Flag(help: jsonHelp) var json: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let s = try await Context.call { () async throws(AISyncError) in try await store.imgurStatus() }
            if json {
                s.json.printLine()
            } else {
                var lines = [
                    "imgur      \(s.enabled ? "enabled (images: \(s.images.rawValue))" : "disabled")",
                    "uploads    \(s.uploads) done, \(s.pending) pending, \(s.failed.count) failed, \(s.deletes) deleted",
                ]
                for f in s.failed { lines.append("  failed   \(f.sha256.hex.prefix(12)): \(f.message)") }
                if let retryAt = s.retryAt {
                    lines.append("rate limit uploads resume after \(Timestamp(milliseconds: retryAt * 1000).iso8601)")
                }
                if let limit = s.rateLimit { lines.append("last limit \(limit.canonicalString)") }
                CLIPlatform.out(lines.joined(separator: "\n") + "\n")
            }
            return ExitCode.success
        }
    }
}

extension StoreConfig.ImagePlacement: ExpressibleByArgumentWord {
    static func invalid(_ text: String, name: String) -> (message: String, hint: String?) {
        ("unknown --images '\(text)'", "Use imgur, remote or both")
    }
}

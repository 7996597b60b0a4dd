import AISync

/// `aisync imgur enable|disable|status`: images on Imgur (docs/DESIGN.md §7).
enum ImgurCommands {
    static let all: [CommandSpec] = [enable, disable, status]

    static let enable = CommandSpec(
        path: ["imgur", "enable"], abstract: "Upload images to Imgur on push.",
        discussion: "The credential comes from the environment only: AISYNC_IMGUR_CLIENT_ID (anonymous uploads) or AISYNC_IMGUR_TOKEN (an account's OAuth access token). Running it again also retries images Imgur refused.",
        options: [OptionSpec(name: "api", valueName: "URL", help: "Replace https://api.imgur.com (tests, proxies; also AISYNC_IMGUR_API)."),
                  OptionSpec(name: "images", valueName: "imgur|remote|both", help: "imgur (default) or both: upload a shareable copy to Imgur, originals always on the remote too; remote: nothing to Imgur."),
                  OptionSpec(name: "public-images", help: "Upload pictures to Imgur even though a remote is encrypted (anyone with a link sees them).")]
    ) { inv throws(CLIError) in
        var placement = StoreConfig.ImagePlacement.imgur
        if let text = inv.option("images") {
            guard let p = StoreConfig.ImagePlacement(rawValue: text) else {
                throw CLIError(usage: "unknown --images '\(text)'", hint: "Use imgur, remote or both", command: inv.command)
            }
            placement = p
        }
        let api = inv.option("api")
        let store = try Context.open(inv)
        let (retried, warnings) = try await Context.call { () async throws(AISyncError) in
            try await store.enableImgur(api: api, images: placement, publicImages: inv.flag("public-images"), environment: CLIPlatform.environmentDictionary())
        }
        if retried > 0 { CLIPlatform.err("note: \(retried == 1 ? "1 picture" : "\(retried) pictures") Imgur refused before will be tried again on the next push\n") }
        for warning in warnings {
            switch warning {
            case .imgurEnabledWithoutCredential:
                CLIPlatform.warn("set AISYNC_IMGUR_CLIENT_ID or AISYNC_IMGUR_TOKEN before pushing; until then images wait to be uploaded")
            case .imgurPausedForEncryptedRemote: break
            }
        }
        return ExitCode.success
    }

    static let disable = CommandSpec(path: ["imgur", "disable"], abstract: "Stop uploading images to Imgur (images already there stay).") { inv throws(CLIError) in
        let store = try Context.open(inv)
        try await Context.call { () async throws(AISyncError) in try await store.disableImgur() }
        return ExitCode.success
    }

    static let status = CommandSpec(path: ["imgur", "status"], abstract: "Uploads done, pending and failed, and the last rate-limit figures.",
                                    options: [InspectCommands.json]) { inv throws(CLIError) in
        let store = try Context.open(inv)
        let s = try await Context.call { () async throws(AISyncError) in try await store.imgurStatus() }
        if inv.flag("json") {
            s.json.printLine()
        } else {
            var lines = ["imgur      \(s.enabled ? "enabled (images: \(s.images.rawValue))" : "disabled")",
                         "uploads    \(s.uploads) done, \(s.pending) pending, \(s.failed.count) failed, \(s.deletes) deleted"]
            for f in s.failed { lines.append("  failed   \(f.sha256.hex.prefix(12)): \(f.message)") }
            if let retryAt = s.retryAt { lines.append("rate limit uploads resume after \(Timestamp(milliseconds: retryAt * 1000).iso8601)") }
            if let limit = s.rateLimit { lines.append("last limit \(limit.canonicalString)") }
            CLIPlatform.out(lines.joined(separator: "\n") + "\n")
        }
        return ExitCode.success
    }
}

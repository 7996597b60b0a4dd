import AISync

/// Commands that create and change records.
enum RecordCommands {
    static let all: [CommandSpec] = [initCommand, chatNew, chatSay, chatEdit, chatRemove, imageAdd, imageSave, storyNew, rename, favorite, remove]

    static let initCommand = CommandSpec(
        path: ["init"], abstract: "Create a new, empty store with a fresh device id.",
        options: [OptionSpec(name: "name", valueName: "DEVICE_NAME", help: "A name for this device (default: the host name).")]
    ) { inv throws(CLIError) in
        let path = try Context.storePath(inv)
        let store = try await Context.call { () throws(AISyncError) in try Store.create(at: path, deviceName: inv.option("name")) }
        CLIPlatform.out("Initialized aisync store in \(path) (device \(store.config.deviceName), id \(store.deviceID))\n")
        return ExitCode.success
    }

    static let chatNew = CommandSpec(
        path: ["chat", "new"], abstract: "Create a chat; prints its id.",
        options: [OptionSpec(name: "title", valueName: "T", help: "The chat's title.", required: true),
                  OptionSpec(name: "model", valueName: "M", help: "The model or engine, e.g. gpt-4o or davinci.")]
    ) { inv throws(CLIError) in
        guard let title = inv.option("title") else { throw CLIError(usage: "missing --title", hint: "Usage: aisync chat new --title T [--model M]", command: inv.command) }
        let store = try Context.open(inv)
        let id = try await Context.call { () async throws(AISyncError) in try await store.createChat(title: title, model: inv.option("model")) }
        CLIPlatform.out("\(id)\n")
        return ExitCode.success
    }

    static let chatSay = CommandSpec(
        path: ["chat", "say"], abstract: "Add a message to a chat; prints the new version.",
        discussion: "TEXT '-' reads the message from standard input. The message's own id (m-…, for `chat edit` and `chat rm`) is shown by `aisync show ID`.",
        arguments: [ArgumentSpec(name: "ID", help: "The chat."), ArgumentSpec(name: "TEXT", help: "The message text, or - for standard input.")],
        options: [OptionSpec(name: "role", valueName: "user|assistant|system", help: "Who said it.", required: true)]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        guard let roleText = inv.option("role") else { throw CLIError(usage: "missing --role", hint: "Give --role user, assistant or system", command: inv.command) }
        guard let role = ChatBody.Role(rawValue: roleText) else {
            throw CLIError(usage: "unknown role '\(roleText)'", hint: "Use user, assistant or system", command: inv.command)
        }
        let text = try Context.text(inv.positionals[1], inv)
        let store = try Context.open(inv)
        let version = try await Context.call { () async throws(AISyncError) in try await store.appendMessage(to: id, role: role, text: text) }
        CLIPlatform.out("\(version.shortID)\n")
        return ExitCode.success
    }

    static let chatEdit = CommandSpec(
        path: ["chat", "edit"], abstract: "Change the text of a message.",
        discussion: "TEXT '-' reads the new text from standard input. Message ids are shown by `aisync show ID`.",
        arguments: [ArgumentSpec(name: "ID", help: "The chat."), ArgumentSpec(name: "MESSAGE_ID", help: "The message (or a unique prefix)."),
                    ArgumentSpec(name: "TEXT", help: "The new text, or - for standard input.")]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        let text = try Context.text(inv.positionals[2], inv)
        let store = try Context.open(inv)
        let version = try await Context.call { () async throws(AISyncError) in try await store.editMessage(id, message: inv.positionals[1], text: text) }
        CLIPlatform.out("\(version.shortID)\n")
        return ExitCode.success
    }

    static let chatRemove = CommandSpec(
        path: ["chat", "rm"], abstract: "Remove a message from a chat.",
        arguments: [ArgumentSpec(name: "ID", help: "The chat."), ArgumentSpec(name: "MESSAGE_ID", help: "The message (or a unique prefix).")]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        let store = try Context.open(inv)
        let version = try await Context.call { () async throws(AISyncError) in try await store.removeMessage(id, message: inv.positionals[1]) }
        CLIPlatform.out("\(version.shortID)\n")
        return ExitCode.success
    }

    static let imageAdd = CommandSpec(
        path: ["image", "add"], abstract: "Add an image file; prints its id.",
        arguments: [ArgumentSpec(name: "PATH", help: "A PNG, JPEG, GIF, WebP, BMP, TIFF, HEIC or AVIF file.")],
        options: [OptionSpec(name: "prompt", valueName: "P", help: "The prompt that made it."),
                  OptionSpec(name: "model", valueName: "M", help: "The model that made it, e.g. dall-e-3."),
                  OptionSpec(name: "title", valueName: "T", help: "A title (default: the file name).")]
    ) { inv throws(CLIError) in
        let store = try Context.open(inv)
        let id = try await Context.call { () async throws(AISyncError) in
            try await store.addImage(fileAt: inv.positionals[0], title: inv.option("title"), prompt: inv.option("prompt"), model: inv.option("model"))
        }
        CLIPlatform.out("\(id)\n")
        return ExitCode.success
    }

    static let imageSave = CommandSpec(
        path: ["image", "save"], abstract: "Write an image's original bytes to a file, or to standard output.",
        discussion: "An existing file is never replaced without --force (exit 64).",
        arguments: [ArgumentSpec(name: "ID", help: "The image."),
                    ArgumentSpec(name: "PATH", help: "Where to write it (a directory keeps the id as name; - is standard output).")],
        options: [OptionSpec(name: "force", help: "Replace an existing file.")]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        let store = try Context.open(inv)
        let path = inv.positionals[1]
        if path == "-" {
            guard !CLIPlatform.stdoutIsTerminal else {
                throw CLIError(usage: "standard output is a terminal, and a picture's bytes would garble it", hint: "Redirect it: aisync image save \(id) - > picture.png", command: inv.command)
            }
            if CLIPlatform.session == nil {
                try await Context.call { () async throws(AISyncError) in try await store.writeImage(id, toFileDescriptor: 1) }
            } else {  // In-process (tests): the captured output stands for file descriptor 1.
                let image = try await Context.call { () async throws(AISyncError) in try await store.export(id, format: .image) }
                CLIPlatform.writeBytes(image.bytes, to: 1)
            }
        } else {
            let force = inv.flag("force")
            try await Context.call { () async throws(AISyncError) in try await store.saveImage(id, to: path, force: force) }
        }
        return ExitCode.success
    }

    static let storyNew = CommandSpec(
        path: ["story", "new"], abstract: "Create an illustrated story; prints its id.",
        discussion: "The n-th --image illustrates the n-th --page.",
        options: [OptionSpec(name: "title", valueName: "T", help: "The story's title.", required: true),
                  OptionSpec(name: "moral", valueName: "M", help: "The moral of the story."),
                  OptionSpec(name: "page", valueName: "TEXT", help: "A page's text; repeat for each page (at least one).", repeatable: true, required: true),
                  OptionSpec(name: "image", valueName: "IMAGE_ID", help: "An image record illustrating the page of the same position.", repeatable: true)]
    ) { inv throws(CLIError) in
        guard let title = inv.option("title") else { throw CLIError(usage: "missing --title", command: inv.command) }
        let pages = inv.options("page")
        guard !pages.isEmpty else { throw CLIError(usage: "missing --page", hint: "Give --page TEXT once per page", command: inv.command) }
        var images: [RecordID] = []
        for text in inv.options("image") { images.append(try await Context.recordID(text, inv)) }
        let store = try Context.open(inv)
        let imageIDs = images
        let id = try await Context.call { () async throws(AISyncError) in
            try await store.createStory(title: title, moral: inv.option("moral"), pages: pages, images: imageIDs)
        }
        CLIPlatform.out("\(id)\n")
        return ExitCode.success
    }

    static let rename = CommandSpec(
        path: ["rename"], abstract: "Change a record's title.",
        arguments: [ArgumentSpec(name: "ID", help: "The record."), ArgumentSpec(name: "TITLE", help: "The new title.")]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        let store = try Context.open(inv)
        try await Context.call { () async throws(AISyncError) in try await store.rename(id, to: inv.positionals[1]) }
        return ExitCode.success
    }

    static let favorite = CommandSpec(
        path: ["favorite"], abstract: "Mark a record as a favorite (or not, with --off).",
        arguments: [ArgumentSpec(name: "ID", help: "The record.")],
        options: [OptionSpec(name: "off", help: "Remove the favorite mark.")]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        let store = try Context.open(inv)
        try await Context.call { () async throws(AISyncError) in try await store.setFavorite(id, !inv.flag("off")) }
        return ExitCode.success
    }

    static let remove = CommandSpec(
        path: ["rm"], abstract: "Delete a record (a tombstone that syncs; other devices' concurrent edits are kept as a conflict).",
        arguments: [ArgumentSpec(name: "ID", help: "The record.")]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        let store = try Context.open(inv)
        try await Context.call { () async throws(AISyncError) in try await store.delete(id) }
        return ExitCode.success
    }
}

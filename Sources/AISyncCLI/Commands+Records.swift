import AISync

extension ChatBody.Role: ExpressibleByArgumentWord {}

/// Commands that create and change records.
enum RecordCommands {
    static let all: [any ParsableCommand.Type] = [
        Init.self, ChatNew.self, ChatSay.self, ChatEdit.self, ChatRemove.self, ImageAdd.self, ImageSave.self,
        StoryNew.self, Rename.self, Favorite.self, Remove.self,
    ]

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["init"], abstract: "Create a new, empty store with a fresh device id.")
        @Option(valueName: "DEVICE_NAME", help: "A name for this device (default: the host name).") var name: String?

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let path = try Context.storePath(context)
            Context.warnIfOthersCanWrite(holding: path)
            let store = try await Context.call { () throws(AISyncError) in try Store.create(at: path, deviceName: name)
            }
            CLIPlatform.out(
                "Initialized aisync store in \(path) (device \(store.config.deviceName), id \(store.deviceID))\n")
            return ExitCode.success
        }
    }

    struct ChatNew: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["chat", "new"], abstract: "Create a chat; prints its id.")
        @Option(valueName: "T", help: "The chat's title.") var title: String
        @Option(valueName: "M", help: "The model or engine, e.g. gpt-4o or davinci.") var model: String?

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let id = try await Context.call { () async throws(AISyncError) in
                try await store.createChat(title: title, model: model)
            }
            CLIPlatform.out("\(id)\n")
            return ExitCode.success
        }
    }

    struct ChatSay: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["chat", "say"], abstract: "Add a message to a chat; prints the new version.",
            discussion:
                "TEXT '-' reads the message from standard input. The message's own id (m-…, for `chat edit` and `chat rm`) is shown by `aisync show ID`."
        )
        @Argument(help: "The chat.") var id: String
        @Argument(help: "The message text, or - for standard input.") var text: String
        @Option(valueName: "user|assistant|system", help: "Who said it.") var role: ChatBody.Role

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let message = try Context.text(text, context)
            let store = try Context.open(context)
            let version = try await Context.call { () async throws(AISyncError) in
                try await store.appendMessage(to: record, role: role, text: message)
            }
            CLIPlatform.out("\(version.shortID)\n")
            return ExitCode.success
        }
    }

    struct ChatEdit: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["chat", "edit"], abstract: "Change the text of a message.",
            discussion: "TEXT '-' reads the new text from standard input. Message ids are shown by `aisync show ID`.")
        @Argument(help: "The chat.") var id: String
        @Argument(help: "The message (or a unique prefix).") var messageID: String
        @Argument(help: "The new text, or - for standard input.") var text: String

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let newText = try Context.text(text, context)
            let store = try Context.open(context)
            let version = try await Context.call { () async throws(AISyncError) in
                try await store.editMessage(record, message: messageID, text: newText)
            }
            CLIPlatform.out("\(version.shortID)\n")
            return ExitCode.success
        }
    }

    struct ChatRemove: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["chat", "rm"], abstract: "Remove a message from a chat.")
        @Argument(help: "The chat.") var id: String
        @Argument(help: "The message (or a unique prefix).") var messageID: String

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let store = try Context.open(context)
            let version = try await Context.call { () async throws(AISyncError) in
                try await store.removeMessage(record, message: messageID)
            }
            CLIPlatform.out("\(version.shortID)\n")
            return ExitCode.success
        }
    }

    struct ImageAdd: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["image", "add"], abstract: "Add an image file; prints its id.")
        @Argument(help: "A PNG, JPEG, GIF, WebP, BMP, TIFF, HEIC or AVIF file.") var path: String
        @Option(valueName: "P", help: "The prompt that made it.") var prompt: String?
        @Option(valueName: "M", help: "The model that made it, e.g. dall-e-3.") var model: String?
        @Option(valueName: "T", help: "A title (default: the file name).") var title: String?

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let id = try await Context.call { () async throws(AISyncError) in
                try await store.addImage(fileAt: path, title: title, prompt: prompt, model: model)
            }
            CLIPlatform.out("\(id)\n")
            return ExitCode.success
        }
    }

    struct ImageSave: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["image", "save"], abstract: "Write an image's original bytes to a file, or to standard output.",
            discussion: "An existing file is never replaced without --force (exit 64).")
        @Argument(help: "The image.") var id: String
        @Argument(help: "Where to write it (a directory keeps the id as name; - is standard output).") var path: String
        @Flag(help: "Replace an existing file.") var force: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let store = try Context.open(context)
            guard path == "-" else {
                try await Context.call { () async throws(AISyncError) in
                    try await store.saveImage(record, to: path, force: force)
                }
                return ExitCode.success
            }
            guard !CLIPlatform.stdoutIsTerminal else {
                throw context.usage(
                    "standard output is a terminal, and a picture's bytes would garble it",
                    hint: "Redirect it: aisync image save \(record) - > picture.png")
            }
            if let output = CLIPlatform.standardOutputDescriptor {
                try await Context.call { () async throws(AISyncError) in
                    try await store.writeImage(record, toFileDescriptor: output)
                }
            } else {
                let image = try await Context.call { () async throws(AISyncError) in
                    try await store.export(record, format: .image)
                }
                CLIPlatform.writeBytes(image.bytes, to: 1)
            }
            return ExitCode.success
        }
    }

    struct StoryNew: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["story", "new"], abstract: "Create an illustrated story; prints its id.",
            discussion: "The n-th --image illustrates the n-th --page.")
        @Option(valueName: "T", help: "The story's title.") var title: String
        @Option(valueName: "M", help: "The moral of the story.") var moral: String?
        @Option(valueName: "TEXT", help: "A page's text; repeat for each page (at least one).", atLeastOnce: true)
        var page: [String]
        @Option(valueName: "IMAGE_ID", help: "An image record illustrating the page of the same position.") var image:
            [String]

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            var images: [RecordID] = []
            for text in image { images.append(try await Context.recordID(text, context)) }
            let store = try Context.open(context)
            let imageIDs = images
            let id = try await Context.call { () async throws(AISyncError) in
                try await store.createStory(title: title, moral: moral, pages: page, images: imageIDs)
            }
            CLIPlatform.out("\(id)\n")
            return ExitCode.success
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(path: ["rename"], abstract: "Change a record's title.")
        @Argument(help: "The record.") var id: String
        @Argument(help: "The new title.") var title: String

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let store = try Context.open(context)
            try await Context.call { () async throws(AISyncError) in try await store.rename(record, to: title) }
            return ExitCode.success
        }
    }

    struct Favorite: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["favorite"], abstract: "Mark a record as a favorite (or not, with --off).")
        @Argument(help: "The record.") var id: String
        @Flag(help: "Remove the favorite mark.") var off: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let store = try Context.open(context)
            try await Context.call { () async throws(AISyncError) in try await store.setFavorite(record, !off) }
            return ExitCode.success
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["rm"],
            abstract:
                "Delete a record (a tombstone that syncs; other devices' concurrent edits are kept as a conflict).")
        @Argument(help: "The record.") var id: String

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let store = try Context.open(context)
            try await Context.call { () async throws(AISyncError) in try await store.delete(record) }
            return ExitCode.success
        }
    }
}

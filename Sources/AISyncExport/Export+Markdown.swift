import AISyncCore

extension Export {
    /// A chat as Markdown: its title, model and dates, then each message under its role's heading.
    ///
    /// Message text is Markdown already (what assistants write), so it is copied as it is:
    /// code blocks stay intact. A message that leaves a code fence open gets it closed, so
    /// the next message's heading is not swallowed into the code block. A picture the text
    /// refers to as `[image: image-…]` becomes `![title](path)` when `imageLink` gives where
    /// it was written; otherwise (nil, the default) the reference stays as it is.
    public static func markdown(chat: ChatBody, imageLink: (RecordID) -> ImageLink? = { _ in nil }) -> String {
        var out = "# \(oneLine(chat.title.isEmpty ? "Untitled chat" : chat.title))\n\n"
        if let model = chat.model { out += "- Model: \(oneLine(model))\n" }
        out += "- Created: \(chat.created.iso8601)\n"
        out += "- Updated: \(chat.updated.iso8601)\n"
        if let instructions = chat.instructions {
            out += "\n## Custom instructions\n\n" + quoted(instructions)
        }
        for message in chat.messages {
            out += "\n## \(roleHeading(message.role))\n\n"
            if let reasoning = message.reasoning {
                out += "<details><summary>Reasoning</summary>\n\n" + quoted(reasoning) + "\n</details>\n\n"
            }
            out += messageText(message, imageLink)
        }
        guard !chat.alternatives.isEmpty else { return out }
        // Other branches come after the transcript, each saying which message it follows, so
        // the transcript reads as the app showed it.
        var numbers: [String: Int] = [:]
        for (n, m) in chat.messages.enumerated() { numbers[m.id] = n + 1 }
        out += "\n---\n\n# Other branches\n\nRegenerated answers and edited questions, kept as alternatives.\n"
        for (n, message) in chat.alternatives.enumerated() {
            let after =
                message.branch?.after.map { id in numbers[id].map { "message \($0)" } ?? "another alternative" }
                ?? "the start"
            out +=
                "\n## Alternative \(n + 1): \(roleHeading(message.role)), after \(after)\n\n"
                + messageText(message, imageLink)
        }
        return out
    }

    /// Text as a Markdown block quote (each line behind `> `), so it reads apart from the
    /// transcript and cannot open headings or code blocks of its own.
    static func quoted(_ text: String) -> String {
        text.normalizingLineEndings().trimmingNewlines().split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? ">" : "> " + $0 }.joined(separator: "\n") + "\n"
    }

    /// A message's text with line endings normalized, its picture references linked, and an
    /// open code fence closed.
    static func messageText(_ message: ChatBody.Message, _ imageLink: (RecordID) -> ImageLink?) -> String {
        let text = linkingImages(message.text.normalizingLineEndings().trimmingNewlines(), imageLink)
        return text + closingFence(for: text) + "\n"
    }

    /// A story as Markdown: its title, moral and pages; `imageLink` names the file a page's
    /// picture was exported to (a relative path), nil to leave the picture out.
    public static func markdown(story: StoryBody, imageLink: (SHA256Digest) -> String? = { _ in nil }) -> String {
        var out = "# \(oneLine(story.title.isEmpty ? "Untitled story" : story.title))\n\n"
        out += "- Created: \(story.created.iso8601)\n"
        out += "- Updated: \(story.updated.iso8601)\n"
        if let moral = story.moral { out += "\n> \(oneLine(moral))\n" }
        for (n, page) in story.pages.enumerated() {
            out += "\n## Page \(n + 1)\n\n"
            if let link = page.image.flatMap(imageLink) { out += "![Illustration for page \(n + 1)](\(link))\n\n" }
            out += page.text.normalizingLineEndings().trimmingNewlines() + "\n"
        }
        return out
    }

    /// The heading a message sits under.
    static func roleHeading(_ role: ChatBody.Role) -> String {
        switch role {
        case .user: "User"
        case .assistant: "Assistant"
        case .system: "System"
        }
    }

    /// Text on one line, for a heading or a list item.
    static func oneLine(_ text: String) -> String {
        text.normalizingLineEndings().split(separator: "\n").joined(separator: " ")
    }

    /// The fence that closes a code block `text` leaves open ("" when none is open), with the
    /// line break before it. Fences are lines starting (after up to 3 spaces) with 3+ backticks or tildes.
    static func closingFence(for text: String) -> String {
        var open: (character: Character, count: Int)?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            guard indent <= 3 else { continue }
            let rest = line.dropFirst(indent)
            guard let first = rest.first, first == "`" || first == "~" else { continue }
            let run = rest.prefix { $0 == first }.count
            guard run >= 3 else { continue }
            if let current = open {
                if first == current.character, run >= current.count,
                    rest.dropFirst(run).allSatisfy({ $0 == " " || $0 == "\t" })
                {
                    open = nil
                }
            } else if first == "~" || !rest.dropFirst(run).contains("`") {
                open = (first, run)
            }
        }
        guard let open else { return "" }
        return "\n" + String(repeating: open.character, count: open.count)
    }
}

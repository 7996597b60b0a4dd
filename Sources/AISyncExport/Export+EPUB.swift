import AISyncCore

extension Export {
    /// A story as an EPUB 3 e-book: a title page, then one XHTML page per story page with its picture.
    ///
    /// `identifier` becomes the book's unique identifier (use something stable, such as the
    /// record id, so a re-export updates the same book in a reader's library); `modified` its
    /// `dcterms:modified`. Pictures missing from `pictures`, and pictures in a format EPUB
    /// readers need not support (HEIC, AVIF, TIFF, BMP), are left out. The zip is written
    /// with `mimetype` first and every entry stored, as the EPUB container format requires.
    public static func epub(
        story: StoryBody, pictures: [SHA256Digest: Picture], identifier: String, modified: Timestamp
    ) throws(AISyncError) -> [UInt8] {
        let book = EPUBBook(
            story: story, pictures: pictures.filter { EPUBPackage.coreMediaTypes.contains($0.value.mediaType) })
        return try book.package.zip(identifier: identifier, modified: modified)
    }

    /// A chat as an EPUB 3 e-book: a title page (model, dates, custom instructions), then the
    /// conversation with its pictures, then other branches when it has them. Pictures are
    /// keyed by image record id (what messages refer to as `[image: image-…]`); those missing,
    /// or in a format EPUB readers need not support, stay as text.
    public static func epub(
        chat: ChatBody, pictures: [RecordID: ChatPicture], identifier: String, modified: Timestamp
    ) throws(AISyncError) -> [UInt8] {
        let usable = pictures.filter { EPUBPackage.coreMediaTypes.contains($0.value.picture.mediaType) }
        let page = ChatPage(chat: chat) { id in
            usable[id].map { ($0.title, EPUBPackage.imageFile($0.picture)) }
        }
        var chapters = [
            EPUBPackage.Chapter(file: "title.xhtml", title: page.title, body: page.header()),
            EPUBPackage.Chapter(file: "chat.xhtml", title: "Conversation", body: page.transcript()),
        ]
        if !chat.alternatives.isEmpty {
            chapters.append(EPUBPackage.Chapter(file: "branches.xhtml", title: "Other branches", body: page.branches()))
        }
        var seen: Set<SHA256Digest> = []
        let used = page.referencedImages.compactMap { usable[$0]?.picture }.filter { seen.insert($0.digest).inserted }
        return try EPUBPackage(title: page.title, chapters: chapters, pictures: used).zip(
            identifier: identifier, modified: modified)
    }
}

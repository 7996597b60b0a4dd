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
            story: story, pictures: pictures.filter { EPUBBook.coreMediaTypes.contains($0.value.mediaType) })
        var zip = StoredZipWriter(modified: modified)
        try zip.add("mimetype", Array("application/epub+zip".utf8))
        try zip.add("META-INF/container.xml", Array(EPUBBook.container.utf8))
        try zip.add("OEBPS/content.opf", Array(book.packageDocument(identifier: identifier, modified: modified).utf8))
        try zip.add("OEBPS/nav.xhtml", Array(book.navigation().utf8))
        try zip.add("OEBPS/style.css", Array(EPUBBook.style.utf8))
        try zip.add("OEBPS/title.xhtml", Array(book.titlePage().utf8))
        for n in story.pages.indices {
            try zip.add("OEBPS/\(EPUBBook.pageFile(n))", Array(book.page(n).utf8))
        }
        for picture in book.pictureList {
            try zip.add("OEBPS/\(EPUBBook.imageFile(picture))", picture.bytes)
        }
        return zip.finish()
    }
}

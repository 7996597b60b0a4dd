import AISyncCore
import AISyncStore

/// Getting records out in formats that need no aisync to open: chats as Markdown, stories as a
/// self-contained HTML picture book and as an EPUB 3, everything as a browsable folder.
public enum Export {}

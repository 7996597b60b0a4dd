// The public façade an app imports: `import AISync` brings the whole library, layer by layer.
//
// Layers depend one way only (the compiler enforces it, each is its own target):
// AISyncCore (model, clocks, merge, canonical JSON, hashing: pure, no I/O)
//   ← AISyncFiles (POSIX file primitives: atomic writes, fsync, streaming copies)
//   ← AISyncStore (the local store: journal, objects, index, lock)
//   ← AISyncHTTP (the HTTP client: transports, socket client, backoff, redirect policy)
//   ← AISyncRemote (folder, WebDAV, HTTP remotes) and AISyncImgur (Imgur API v3), both on
//     AISyncHTTP; AISyncImport downloads through it too
//   ← AISyncSync (push, pull, Imgur uploads); AISyncImport and AISyncExport (other apps'
//     exports in; Markdown, HTML and EPUB out) sit on the store beside the remotes
//   ← AISync (this façade) ← aisync (the command line: parse, call, print).
@_exported import AISyncCore
@_exported import AISyncExport
@_exported import AISyncFiles
@_exported import AISyncHTTP
@_exported import AISyncImgur
@_exported import AISyncImport
@_exported import AISyncRemote
@_exported import AISyncStore
@_exported import AISyncSync

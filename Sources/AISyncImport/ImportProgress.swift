/// How far a big import has come: JSON bytes written so far out of the files' total, and
/// records written. An app shows it as a bar; the CLI as one line on a terminal.
public struct ImportProgress: Sendable, Equatable {
    /// Bytes of the export's JSON files whose records are written.
    public var bytesDone: Int64 = 0
    /// The size of the export's JSON files.
    public var totalBytes: Int64
    /// Records written (or, in a dry run, read) so far.
    public var records = 0

    /// Progress at the start of an import of `totalBytes` bytes of JSON.
    public init(totalBytes: Int64) { self.totalBytes = totalBytes }

    /// The part done, 0…1 (1 for an empty export).
    public var fraction: Double { totalBytes > 0 ? min(1, Double(bytesDone) / Double(totalBytes)) : 1 }
}

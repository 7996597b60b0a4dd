import AISyncCore
import AISyncFiles
import AISyncRemote
import AISyncStore

extension SyncEngine {
    /// Downloads a segment (or snapshot part) to a scratch file, hashing it on the way, and
    /// parses it from there a line at a time: a segment never sits whole in memory next to
    /// its parsed entries, and a hostile one (a 63 MB line of one string) is refused after a
    /// few KiB are read. Nil when the remote does not have it.
    ///
    /// Like ``readParsed(_:maxBytes:_:)``, a segment that does not parse is read again after
    /// a short wait (a server writing it in place, an answer cut short), until a read of the
    /// same size is refused for the same reason: then the damage is real. (Compared without
    /// hashing the file: most refusals stop reading after a few KiB.)
    ///
    /// `downloaded`: a scratch file ``downloadSegmentFile(_:)`` already filled with the file,
    /// read by the first attempt instead of downloading it again (and removed like the others).
    func readSegmentFile(
        _ path: String, device: DeviceID, seq: Int64, remoteID: String, downloaded: String? = nil
    ) async throws(AISyncError) -> (segment: Segment, bytes: Int)? {
        let shown = "\(remote.displayName)/\(path)"
        var attempt = 0
        var refused: (size: Int64, message: String)?
        var prefilled = downloaded
        while true {
            let given = prefilled.take()
            let temp: String
            if let given { temp = given } else { temp = try await store.scratchPath() }
            defer { _ = Platform.unlink(temp) }
            var size: Int64 = 0
            do throws(AISyncError) {
                // On an encrypted remote a file caught half-written fails here, as `.truncated`.
                if given == nil, try await !remote.download(path, to: temp, maxBytes: Int64(RemoteLimits.segment)) {
                    return nil
                }
                size = Platform.stat(temp)?.size ?? 0
                var source = try FileLines(path: temp)
                let segment = try Segment.decode(
                    &source, path: shown, device: device, seq: seq, remoteID: remoteID,
                    maxLineBytes: RemoteLimits.segment)
                return (segment, Int(size))
            } catch  where (error.code == .damagedData || error.code == .truncated) && attempt < 3 {
                if keys == nil, (try? FileIO.readRange(temp, from: 0, count: 8)) == SealedFile.magic {
                    throw try await encryptedNow()
                }
                if let refused, refused.size == size, refused.message == error.message { throw error }
                refused = (size, error.message)
                attempt += 1
                await store.environment.sleep(150 * attempt)
            }
        }
    }

    /// Downloads a segment (or snapshot part) to a new scratch file and returns its path, for
    /// ``readSegmentFile(_:device:seq:remoteID:downloaded:)`` to read later; nil when the
    /// remote does not have it. The caller owns the file.
    func downloadSegmentFile(_ path: String) async throws(AISyncError) -> String? {
        let temp = try await store.scratchPath()
        do throws(AISyncError) {
            if try await remote.download(path, to: temp, maxBytes: Int64(RemoteLimits.segment)) { return temp }
        } catch {
            _ = Platform.unlink(temp)
            throw error
        }
        _ = Platform.unlink(temp)
        return nil
    }
}

import AISyncCore
import AISyncStore

extension Store {
    /// The pictures a chat's messages show (`[image: image-…]`, see
    /// ``referencedImages(in:)``) that are in this store, by image record id, each verified
    /// against its sha256; the others are left out (their references stay as text).
    public func pictures(of chat: ChatBody) throws(AISyncError) -> [RecordID: Export.ChatPicture] {
        var result: [RecordID: Export.ChatPicture] = [:]
        for (id, image) in try referencedImages(in: chat).found {
            guard let picture = try picture(image.sha256) else { continue }
            result[id] = Export.ChatPicture(
                picture: Export.Picture(digest: picture.digest, bytes: picture.bytes, mediaType: image.mediaType),
                title: image.title.isEmpty ? id.rawValue : image.title)
        }
        return result
    }
}

extension RecordBody {
    /// The body without its secrets, for showing to people or writing to logs.
    ///
    /// The one secret a record holds is an image's Imgur `deletehash`: whoever has it can
    /// delete the picture on Imgur, with no account and no other check. Show it only when the
    /// user explicitly asks for it; everything else is unchanged.
    public func redactingSecrets() -> RecordBody {
        guard case .image(var image) = self, image.imgur?.deletehash != nil else { return self }
        image.imgur?.deletehash = nil
        return .image(image)
    }
}

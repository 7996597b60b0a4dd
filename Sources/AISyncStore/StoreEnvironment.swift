import AISyncCore

/// The store's clock, id source and patience: now the library-wide `AISyncEnvironment`.
///
/// Kept so code written against the old name compiles unchanged while it moves over.
@available(*, deprecated, renamed: "AISyncEnvironment")
public typealias StoreEnvironment = AISyncEnvironment

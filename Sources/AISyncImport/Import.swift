import AISyncCore
import AISyncStore

/// Bringing history in from other apps' exports (ChatGPT, Claude, storybook apps, DALL·E):
/// each source is parsed into records with ids derived from the source's own ids, so importing
/// the same export twice adds nothing and a newer export adds only what is new.
public enum Import {}

/// Facts about a URL's host that the HTTP clients' policies share (WebDAV remotes, Imgur, downloads).
public enum HTTPHost {
    /// `localhost`, `::1`, or an IPv4 literal in 127.0.0.0/8 (not a name that starts with "127.").
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4,
            octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil })
        else { return false }
        return octets[0] == "127"
    }
}

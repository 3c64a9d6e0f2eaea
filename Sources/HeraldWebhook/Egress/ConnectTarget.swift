/// The destination of a `CONNECT` request: `host:port`, `[v6]:port`, or an unbracketed IPv6 address and port.
struct ConnectTarget: Hashable, Sendable {
    /// The host name or address, without brackets.
    var host: String
    /// The TCP port.
    var port: Int

    /// Parses the request target of `CONNECT`; `nil` when it has no valid port or no host.
    init?(_ text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            // Any colon but the last belongs to an IPv6 address written without brackets.
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ (48...57).contains($0) }),
            let port = Int(portText), (1...65535).contains(port)
        else { return nil }
        self.host = String(host)
        self.port = port
    }
}

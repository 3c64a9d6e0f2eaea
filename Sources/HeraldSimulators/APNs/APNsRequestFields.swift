import NIOHPACK

/// The request headers §1.9 looks at (and those of the broadcast and channel management APIs), gathered in one pass
/// over the header list.
struct APNsRequestFields {
    var method: String?
    var path: String?
    var apnsID: String?
    var topic: String?
    var collapseID: String?
    var priority: String?
    var pushType: String?
    var expiration: String?
    var authorization: String?
    /// `apns-request-id`, the broadcast and channel management APIs' request identifier.
    var requestID: String?
    /// `apns-channel-id`, the broadcast channel a request addresses.
    var channelID: String?
    var hasDuplicate = false

    /// Reads the fields from `headers`, noting whether any ordinary header repeats.
    init(_ headers: HPACKHeaders) {
        var seen: [String] = []
        seen.reserveCapacity(headers.count)
        for (name, value, _) in headers {
            if name.utf8.first == UInt8(ascii: ":") {
                // nio-http2 already refuses repeated pseudo-headers.
                switch name {
                case ":method": self.method = value
                case ":path": self.path = value
                default: break
                }
                continue
            }
            if seen.contains(name) {
                self.hasDuplicate = true
            } else {
                seen.append(name)
            }
            switch name {
            case "apns-id": self.apnsID = value
            case "apns-topic": self.topic = value
            case "apns-collapse-id": self.collapseID = value
            case "apns-priority": self.priority = value
            case "apns-push-type": self.pushType = value
            case "apns-expiration": self.expiration = value
            case "authorization": self.authorization = value
            case "apns-request-id": self.requestID = value
            case "apns-channel-id": self.channelID = value
            default: break
            }
        }
    }
}

import HeraldCore

/// A registration datagram, `{"device":"<token>","group":"<name>"}` (compat.md §5.2).
struct ChoominatorRegistration: Sendable, Equatable {
    /// The device token, lower-cased hex.
    var device: String
    /// The event the device is subscribed to.
    var group: EventName

    /// The keys a registration may have.
    static let keys: Set<String> = ["device", "group"]

    /// Parses and checks a datagram.
    init(parsing bytes: some Collection<UInt8>) throws(ChoominatorRejection) {
        let object = try ChoominatorObject(parsing: bytes, allowed: Self.keys)
        let device = try object.requiredString("device")
        let group = try object.requiredString("group")
        guard Self.isAPNsToken(device) else { throw .invalidToken }
        guard let event = EventName(group) else { throw .invalidGroup }
        self.device = device.lowercased()
        self.group = event
    }

    /// Hex, even length, 64 to 200 characters. The original documented lower-case hex without
    /// checking; either case is taken and lower-cased.
    static func isAPNsToken(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (64...200).contains(bytes.count), bytes.count % 2 == 0 else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
            default: false
            }
        }
    }
}

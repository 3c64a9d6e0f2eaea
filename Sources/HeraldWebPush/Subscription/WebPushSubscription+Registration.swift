import HeraldCore

extension WebPushSubscription {
    /// Reads a registration in either form of pushd-api.md §9; `nil` when it is invalid.
    ///
    /// - (a) `token` is the endpoint URL and the keys are the body fields `p256dh` and `auth` (a JSON body may also
    ///   carry them as a `keys` object, as in a PushSubscription);
    /// - (b) `token` is the whole PushSubscription, as a JSON object or as its JSON text. Other members
    ///   (`expirationTime`, ...) are ignored.
    public init?(registration input: TokenInput) {
        guard let token = input.token else { return nil }
        switch token {
        case .object:
            self.init(pushSubscription: token)
        case .string(let text):
            if text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) == UInt8(ascii: "{") {
                self.init(storedToken: text)
                return
            }
            let keys = input.body["keys"]
            guard let p256dh = input.body["p256dh"]?.scalarText ?? keys?["p256dh"]?.scalarText,
                let auth = input.body["auth"]?.scalarText ?? keys?["auth"]?.scalarText
            else { return nil }
            self.init(endpoint: text, p256dh: p256dh, auth: auth)
        default:
            return nil
        }
    }

    /// Reads a PushSubscription's JSON text, such as a stored token (``canonicalJSON``); `nil` when it is invalid.
    public init?(storedToken text: String) {
        // A PushSubscription is a few hundred bytes; refusing large text bounds the parse.
        guard text.utf8.count <= 4 * Self.maximumEndpointLength, let value = try? JSONBodyParser.parse(text) else {
            return nil
        }
        self.init(pushSubscription: value)
    }

    /// Reads a PushSubscription object: `endpoint`, `keys.p256dh` and `keys.auth`, all strings.
    init?(pushSubscription value: BodyValue) {
        guard case .string(let endpoint)? = value["endpoint"],
            case .string(let p256dh)? = value["keys"]?["p256dh"],
            case .string(let auth)? = value["keys"]?["auth"]
        else { return nil }
        self.init(endpoint: endpoint, p256dh: p256dh, auth: auth)
    }
}

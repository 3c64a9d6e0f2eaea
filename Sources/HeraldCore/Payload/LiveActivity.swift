/// A Live Activity update carried by a pushd event (`liveActivity` in its payload), rendered into
/// `aps` for APNs subscribers (their tokens are an activity's push token, or an app's
/// push-to-start token); other providers ignore it.
///
/// Written in the payload as
/// `{"event":"update","contentState":{…},"staleDate":…,"dismissalDate":…,"relevanceScore":…,"attributesType":…,"attributes":{…}}`,
/// Apple's `aps` keys in camel case. JSON values are kept as their text, so they reach the app
/// exactly as sent.
public struct LiveActivity: Sendable, Equatable, Hashable, Codable {
    /// What the push does to the activity.
    public enum Event: String, Sendable, Codable, CaseIterable {
        /// Starts one (push-to-start): needs `attributesType` and `attributes`.
        case start
        /// Changes its content state.
        case update
        /// Ends it (optionally with a final content state).
        case end
    }

    /// `aps.event`.
    public var event: Event
    /// `aps.content-state`: a JSON object, as text; required to start or update.
    public var contentState: String?
    /// `aps.timestamp` (Unix seconds): when the state was true; the publish time when not given.
    public var timestamp: Int64?
    /// `aps.stale-date` (Unix seconds).
    public var staleDate: Int64?
    /// `aps.dismissal-date` (Unix seconds).
    public var dismissalDate: Int64?
    /// `aps.relevance-score`: a JSON number, as text (normalized).
    public var relevanceScore: String?
    /// `aps.attributes-type`: the activity's attributes type name (to start one).
    public var attributesType: String?
    /// `aps.attributes`: a JSON object, as text (to start one).
    public var attributes: String?
    /// `aps.input-push-token`: whether a started activity should report its update token.
    public var inputPushToken: Bool
    /// `aps.input-push-channel`: the broadcast channel a started activity follows.
    public var inputPushChannel: String?

    /// Creates an update.
    public init(event: Event, contentState: String? = nil, timestamp: Int64? = nil) {
        self.event = event
        self.contentState = contentState
        self.timestamp = timestamp
        self.inputPushToken = false
    }

    /// Reads `liveActivity` from an event payload.
    /// - Throws: ``PayloadError`` naming the first key that is unknown or of the wrong form
    ///   (`liveActivity.<key>`), or a missing key the event needs.
    public init(payload value: BodyValue) throws(PayloadError) {
        guard let members = value.objectMembers else { throw .invalidValue("liveActivity") }
        var event: Event?
        self.inputPushToken = false
        for (key, member) in members {
            let name = "liveActivity.\(key)"
            switch key {
            case "event":
                guard case .string(let text) = member, let parsed = Event(rawValue: text) else { throw .invalidValue(name) }
                event = parsed
            case "contentState":
                guard case .object = member else { throw .invalidValue(name) }
                contentState = member.jsonText
            case "attributes":
                guard case .object = member else { throw .invalidValue(name) }
                attributes = member.jsonText
            case "attributesType":
                guard case .string(let text) = member, !text.isEmpty else { throw .invalidValue(name) }
                attributesType = text
            case "inputPushChannel":
                guard case .string(let text) = member, !text.isEmpty else { throw .invalidValue(name) }
                inputPushChannel = text
            case "inputPushToken":
                switch member {
                case .bool(let flag): inputPushToken = flag
                case .string(let text) where text == "true" || text == "1": inputPushToken = true
                case .string(let text) where text == "false" || text == "0": inputPushToken = false
                case .number(let text) where text == "1" || text == "0": inputPushToken = text == "1"
                default: throw .invalidValue(name)
                }
            case "timestamp", "staleDate", "dismissalDate":
                guard let seconds = Self.seconds(member) else { throw .invalidValue(name) }
                switch key {
                case "timestamp": timestamp = seconds
                case "staleDate": staleDate = seconds
                default: dismissalDate = seconds
                }
            case "relevanceScore":
                let text: String
                switch member {
                case .number(let literal): text = literal
                case .string(let literal): text = literal
                default: throw .invalidValue(name)
                }
                guard let score = Double(text), score.isFinite, abs(score) <= 1e300 else { throw .invalidValue(name) }
                // Swift's own spelling is valid JSON; the given text might not be (`0x1p3`, `.5`).
                relevanceScore = String(score)
            default:
                throw .invalidField(name)
            }
        }
        guard let event else { throw .invalidValue("liveActivity.event") }
        self.event = event
        if event != .end, contentState == nil { throw .invalidValue("liveActivity.contentState") }
        if event == .start, attributesType == nil || attributes == nil {
            throw .invalidValue(attributesType == nil ? "liveActivity.attributesType" : "liveActivity.attributes")
        }
    }

    /// Unix seconds as a JSON number (`1700000000`, `1.7e9`, `1700000000.0`: any whole value) or a
    /// form's digits.
    private static func seconds(_ value: BodyValue) -> Int64? {
        let text: String
        switch value {
        case .number(let literal), .string(let literal): text = literal
        default: return nil
        }
        if let whole = Int64(text) { return whole >= 0 ? whole : nil }
        guard case .number = value, let double = Double(text), double >= 0, double < 9.2e18, double == double.rounded() else { return nil }
        return Int64(double)
    }

    /// Writes Apple's `aps` keys of the update (`event`, `content-state`, `timestamp`, …), with
    /// `timestamp` defaulting to `publishedAt`.
    public func writeAPSKeys(to writer: inout JSONWriter, publishedAt: Int64) {
        writer.key("timestamp")
        writer.number(timestamp ?? publishedAt)
        writer.key("event")
        writer.string(event.rawValue)
        if let contentState {
            writer.key("content-state")
            writer.raw(contentState)
        }
        if let staleDate {
            writer.key("stale-date")
            writer.number(staleDate)
        }
        if let dismissalDate {
            writer.key("dismissal-date")
            writer.number(dismissalDate)
        }
        if let relevanceScore {
            writer.key("relevance-score")
            writer.raw(relevanceScore)
        }
        if let attributesType {
            writer.key("attributes-type")
            writer.string(attributesType)
        }
        if let attributes {
            writer.key("attributes")
            writer.raw(attributes)
        }
        if inputPushToken {
            writer.key("input-push-token")
            writer.number(1)
        }
        if let inputPushChannel {
            writer.key("input-push-channel")
            writer.string(inputPushChannel)
        }
    }
}

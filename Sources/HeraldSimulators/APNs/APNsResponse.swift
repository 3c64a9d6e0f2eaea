import NIOCore
import NIOHPACK

/// An answer to one APNs request (§1.4): `200` with no body, or an error with `{"reason":…}`; for the broadcast and
/// channel management APIs also `201`/`204`, and `200` with a JSON body.
struct APNsResponse: Sendable, SimulatorHTTP2Response {
    var status: Int
    /// The `apns-id` header, which device pushes get; `nil` for the broadcast and channel management APIs.
    var apnsID: String?
    var reason: String?
    /// Milliseconds since 1970, for `410`.
    var timestamp: Int64?
    /// Seconds, for injected `429`s.
    var retryAfter: Int?
    /// The development environment's `apns-unique-id` (and every accepted broadcast's).
    var uniqueID: String?
    /// The `apns-request-id` header, which the broadcast and channel management APIs answer with.
    var requestID: String?
    /// The `apns-channel-id` header of a created channel.
    var channelID: String?
    /// The JSON body of a successful channel management answer (a channel's configuration, the channel list).
    var successBody: String?

    /// A `200`.
    static func success(apnsID: String, uniqueID: String?) -> APNsResponse {
        APNsResponse(status: 200, apnsID: apnsID, uniqueID: uniqueID)
    }

    /// An error answer.
    static func error(
        _ status: Int,
        _ reason: String,
        apnsID: String,
        timestamp: Int64? = nil,
        retryAfter: Int? = nil
    ) -> APNsResponse {
        APNsResponse(status: status, apnsID: apnsID, reason: reason, timestamp: timestamp, retryAfter: retryAfter)
    }

    /// An error answer of the broadcast or channel management API, which carries `apns-request-id` instead of
    /// `apns-id`.
    static func error(_ status: Int, _ reason: String, requestID: String, retryAfter: Int? = nil) -> APNsResponse {
        APNsResponse(status: status, reason: reason, retryAfter: retryAfter, requestID: requestID)
    }

    /// A successful answer of the broadcast or channel management API: `status` with `apns-request-id`, plus
    /// whichever of `apns-unique-id`, `apns-channel-id` and a JSON body are given.
    static func success(
        _ status: Int,
        requestID: String,
        uniqueID: String? = nil,
        channelID: String? = nil,
        body: String? = nil
    ) -> APNsResponse {
        APNsResponse(status: status, uniqueID: uniqueID, requestID: requestID, channelID: channelID, successBody: body)
    }

    /// The HEADERS frame's header list.
    var headerBlock: HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(5)
        headers.add(name: ":status", value: String(self.status))
        if let apnsID = self.apnsID {
            headers.add(name: "apns-id", value: apnsID)
        }
        if let requestID = self.requestID {
            headers.add(name: "apns-request-id", value: requestID)
        }
        if let uniqueID = self.uniqueID {
            headers.add(name: "apns-unique-id", value: uniqueID)
        }
        if let channelID = self.channelID {
            headers.add(name: "apns-channel-id", value: channelID)
        }
        if self.reason != nil || self.successBody != nil {
            headers.add(name: "content-type", value: "application/json")
        }
        if let retryAfter = self.retryAfter {
            headers.add(name: "retry-after", value: String(retryAfter))
        }
        return headers
    }

    /// The JSON body of an error or of a channel management answer that has one, else `nil`.
    func body(allocator: ByteBufferAllocator) -> ByteBuffer? {
        if let reason = self.reason {
            return allocator.buffer(string: Self.json(reason: reason, timestamp: self.timestamp))
        }
        return self.successBody.map { allocator.buffer(string: $0) }
    }

    /// `{"reason":"…"}`, with `"timestamp":…` when given: the body of errors and the debug data of `GOAWAY`.
    static func json(reason: String, timestamp: Int64? = nil) -> String {
        var json = "{\"reason\":\""
        for scalar in reason.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
        if let timestamp {
            json += ",\"timestamp\":\(timestamp)"
        }
        return json + "}"
    }
}

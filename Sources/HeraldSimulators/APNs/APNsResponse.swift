import NIOCore
import NIOHPACK

/// An answer to one APNs request (§1.4): `200` with no body, or an error with `{"reason":…}`.
struct APNsResponse: Sendable, SimulatorHTTP2Response {
    var status: Int
    var apnsID: String
    var reason: String?
    /// Milliseconds since 1970, for `410`.
    var timestamp: Int64?
    /// Seconds, for injected `429`s.
    var retryAfter: Int?
    /// The development environment's `apns-unique-id`.
    var uniqueID: String?

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

    /// The HEADERS frame's header list.
    var headerBlock: HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(5)
        headers.add(name: ":status", value: String(self.status))
        headers.add(name: "apns-id", value: self.apnsID)
        if let uniqueID = self.uniqueID {
            headers.add(name: "apns-unique-id", value: uniqueID)
        }
        if self.reason != nil {
            headers.add(name: "content-type", value: "application/json")
        }
        if let retryAfter = self.retryAfter {
            headers.add(name: "retry-after", value: String(retryAfter))
        }
        return headers
    }

    /// The JSON body of an error, `nil` for success.
    func body(allocator: ByteBufferAllocator) -> ByteBuffer? {
        guard let reason = self.reason else { return nil }
        return allocator.buffer(string: Self.json(reason: reason, timestamp: self.timestamp))
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

import HeraldCore
import HTTPTypes
import NIOCore

/// A `GET /subscribe` request (§12.1), checked by the same rules whichever path serves it: the
/// router, or ``EventStreamTakeover`` on a plain HTTP/1.1 connection.
struct EventStreamRequest {
    /// The events listened to.
    let events: [String]
    /// The id of the last event the client received (`Last-Event-ID`, which browsers send when they
    /// reconnect, or `lastEventId` in the query for clients that cannot set headers).
    let lastEventID: String?
    /// What the stream starts with: a newline; for Internet Explorer 2 KiB of newlines, since its
    /// XDomainRequest shows nothing before that much has arrived.
    let preamble: ByteBuffer

    /// The answer's header fields.
    static let responseHeaders: HTTPFields = [
        .contentType: "text/event-stream",
        .cacheControl: "no-cache",
        .accessControlAllowOrigin: "*",
        .connection: "close",
    ]

    /// Reads the `events` query parameter (names separated by spaces) and checks `Accept`.
    /// - Throws: 400 without one `events` naming at least one event; 406 when `Accept` refuses `text/event-stream`.
    init(query: Substring?, headers: HTTPFields) throws(APIError) {
        let parameters = try? FormBodyDecoder.decode(Array((query ?? "").utf8))
        guard case .string(let list)? = parameters?["events"] else { throw .bare(.badRequest) }
        events = list.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if let header = headers[HTTPField.Name("Last-Event-ID")!], !header.isEmpty {
            lastEventID = header
        } else if case .string(let value)? = parameters?["lastEventId"], !value.isEmpty {
            lastEventID = value
        } else {
            lastEventID = nil
        }
        guard !events.isEmpty else { throw .bare(.badRequest) }
        guard Self.acceptsEventStream(headers[.accept]) else { throw .bare(.notAcceptable) }
        let padding = headers[.userAgent]?.contains("MSIE") == true ? 2047 : 0
        preamble = ByteBuffer(repeating: UInt8(ascii: "\n"), count: 1 + padding)
    }

    /// Whether an `Accept` header admits `text/event-stream` with q > 0 (no header admits everything).
    static func acceptsEventStream(_ accept: String?) -> Bool {
        guard let accept, !accept.trimmingWhitespace().isEmpty else { return true }
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { String($0).trimmingWhitespace().lowercased() }
            guard let type = parts.first, type == "text/event-stream" || type == "text/*" || type == "*/*" else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0 { return true }
        }
        return false
    }
}

import Foundation
import Hummingbird

extension WNSSimulatorStore {
    /// The notification types WNS knows (`X-WNS-Type`).
    static let types: Set<String> = ["wns/toast", "wns/tile", "wns/badge", "wns/raw"]
    /// The badge glyph names a `<badge value="…"/>` may use besides a number.
    static let badgeGlyphs: Set<String> = [
        "none", "activity", "alarm", "alert", "attention", "available", "away", "busy", "error", "newMessage", "paused",
        "playing", "unavailable",
    ]

    /// A failed check: the status and the `X-WNS-Error-Description`.
    private struct Refusal: Error {
        var status: Int
        var description: String
        var retryAfter: Int?
        var wnsStatus: String?
    }

    /// `POST /?token=<channel>`: a notification to a channel URI (providers.md §4.2–4.5).
    func notify(_ request: Request) async throws -> Response {
        let (injection, delay) = state.withLock { state in
            state.statistics.notificationRequests += 1
            return state.faults.arrive()
        }
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        if let injection {
            switch injection {
            case .status(let status, let retryAfter):
                return refuse(Refusal(status: status, description: Self.standardDescription(status), retryAfter: retryAfter))
            case .throttle(let retryAfter):
                return refuse(
                    Refusal(status: 406, description: "Throttle limit exceeded", retryAfter: retryAfter, wnsStatus: "channelthrottled"))
            case .delay:
                break
            }
        }
        do {
            let (channelID, type) = try check(request)
            let body = try await request.body.collect(upTo: 1 << 20)
            let bytes = Array(body.readableBytesView)
            try check(bytes, type: type, request: request)
            return accept(request, channelID: channelID, type: type, body: bytes)
        } catch let refusal as Refusal {
            return refuse(refusal)
        }
    }

    /// Any method but POST on a channel URI.
    func methodNotAllowed(_ request: Request) -> Response {
        refuse(Refusal(status: 405, description: "The method is not allowed; use POST"))
    }

    /// The header checks, in the order WNS applies them: token, channel, type, content type, length, options.
    private func check(_ request: Request) throws(Refusal) -> (channelID: String, type: String) {
        let authorization = SimulatorHTTPAnswer.header(request, "Authorization") ?? ""
        let token = authorization.lowercased().hasPrefix("bearer ") ? String(authorization.dropFirst(7)) : ""
        guard !token.isEmpty else { throw Refusal(status: 401, description: "Missing bearer token") }
        let channelID = request.uri.queryParameters.get("token") ?? ""
        let verdict = state.withLock { state -> Result<WNSSimulatorState.Channel, Refusal> in
            guard let issued = state.tokens[token] else {
                return .failure(Refusal(status: 401, description: "Invalid token"))
            }
            guard ContinuousClock.now < issued.expiresAt else {
                return .failure(Refusal(status: 401, description: "Token expired"))
            }
            guard let channel = state.channels[channelID] else {
                return .failure(Refusal(status: 404, description: "The channel URI is not valid"))
            }
            guard channel.clientID == issued.clientID else {
                return .failure(Refusal(status: 403, description: "The channel belongs to another application"))
            }
            return .success(channel)
        }
        let channel = try verdict.get()
        if channel.state == .expired { throw Refusal(status: 410, description: "The channel expired") }
        guard let type = SimulatorHTTPAnswer.header(request, "X-WNS-Type") else {
            throw Refusal(status: 400, description: "The X-WNS-Type header is missing")
        }
        guard Self.types.contains(type) else { throw Refusal(status: 400, description: "The X-WNS-Type header is not valid") }
        let contentType = SimulatorHTTPAnswer.header(request, "Content-Type")?.lowercased() ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let wanted = type == "wns/raw" ? "application/octet-stream" : "text/xml"
        guard mediaType == wanted else {
            throw Refusal(status: 400, description: "The Content-Type must be \(wanted) for \(type)")
        }
        guard let length = SimulatorHTTPAnswer.header(request, "Content-Length"), Int(length) != nil else {
            throw Refusal(status: 400, description: "The Content-Length header is required")
        }
        if let ttl = SimulatorHTTPAnswer.header(request, "X-WNS-TTL"), Int(ttl).map({ $0 < 0 }) ?? true {
            throw Refusal(status: 400, description: "The X-WNS-TTL header is not valid")
        }
        if let tag = SimulatorHTTPAnswer.header(request, "X-WNS-Tag"),
            tag.isEmpty || tag.count > 16 || !tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        {
            throw Refusal(status: 400, description: "The X-WNS-Tag header is not valid")
        }
        if let policy = SimulatorHTTPAnswer.header(request, "X-WNS-Cache-Policy"), policy != "cache" && policy != "no-cache" {
            throw Refusal(status: 400, description: "The X-WNS-Cache-Policy header is not valid")
        }
        if let flag = SimulatorHTTPAnswer.header(request, "X-WNS-RequestForStatus"), flag != "true" && flag != "false" {
            throw Refusal(status: 400, description: "The X-WNS-RequestForStatus header is not valid")
        }
        return (channelID, type)
    }

    /// The body checks: size, then well-formed XML with the root element of the type.
    private func check(_ body: [UInt8], type: String, request: Request) throws(Refusal) {
        guard body.count <= configuration.maximumBodyBytes else {
            throw Refusal(status: 413, description: "The notification payload exceeds the \(configuration.maximumBodyBytes) byte limit")
        }
        guard type != "wns/raw" else { return }
        let root: SimulatorXMLDocument.Element
        switch SimulatorXMLDocument.parse(body) {
        case .success(let document): root = document.root
        case .failure(let error): throw Refusal(status: 400, description: "The payload is not well-formed XML: \(error.message)")
        }
        let expected = String(type.dropFirst(4))
        guard root.name == expected else {
            throw Refusal(status: 400, description: "The root element must be <\(expected)> for \(type)")
        }
        switch expected {
        case "badge":
            guard let value = root.attributes["value"], Int(value) != nil || Self.badgeGlyphs.contains(value) else {
                throw Refusal(status: 400, description: "The badge value is not valid")
            }
        default:
            guard root.child("visual") != nil else {
                throw Refusal(status: 400, description: "The <\(expected)> element must contain <visual>")
            }
        }
    }

    /// The headers of an accepted notification that ``WNSSimulator/Configuration/onAccepted`` hears about (never
    /// `Authorization`).
    private static let deliveryHeaders = [
        "X-WNS-Type", "X-WNS-Tag", "X-WNS-Group", "X-WNS-TTL", "X-WNS-Cache-Policy", "X-WNS-RequestForStatus",
    ]

    private func accept(_ request: Request, channelID: String, type: String, body: [UInt8]) -> Response {
        let requestedStatus = SimulatorHTTPAnswer.header(request, "X-WNS-RequestForStatus") == "true"
        let (messageID, wnsStatus) = state.withLock { state -> (String, String) in
            let messageID = randomHex(&state)
            let offline = state.channels[channelID]?.state == .offline
            if offline && (type == "wns/toast" || type == "wns/raw") {
                state.statistics.dropped += 1
                return (messageID, "dropped")
            }
            state.statistics.accepted += 1
            if configuration.recordPayloads {
                let uri = state.channelURI(id: channelID)
                state.accepted.append(
                    WNSSimulator.Accepted(
                        channel: uri, type: type, headers: SimulatorHTTPAnswer.headers(request),
                        body: String(decoding: body, as: UTF8.self), messageID: messageID))
            }
            return (messageID, "received")
        }
        if wnsStatus == "received", let onAccepted = configuration.onAccepted {
            onAccepted(SimulatorDelivery(
                service: "wns", recipients: [channelID],
                fields: SimulatorDelivery.fields(Self.deliveryHeaders) { SimulatorHTTPAnswer.header(request, $0) },
                payload: String(decoding: body, as: UTF8.self)))
        }
        var headers = [("X-WNS-Status", wnsStatus), ("X-WNS-NotificationStatus", wnsStatus), ("X-WNS-Msg-ID", messageID)]
        if requestedStatus { headers.append(("X-WNS-DeviceConnectionStatus", wnsStatus == "dropped" ? "disconnected" : "connected")) }
        return SimulatorHTTPAnswer.make(status: 200, headers: headers)
    }

    private func refuse(_ refusal: Refusal) -> Response {
        let messageID = state.withLock { state in
            state.statistics.rejections[refusal.status, default: 0] += 1
            return randomHex(&state)
        }
        configuration.logger.debug(
            "WNS notification refused", metadata: ["status": "\(refusal.status)", "description": "\(refusal.description)"])
        var headers = [("X-WNS-Error-Description", refusal.description), ("X-WNS-Msg-ID", messageID), ("X-WNS-Debug-Trace", "SIMULATOR")]
        if let wnsStatus = refusal.wnsStatus {
            headers.append(("X-WNS-Status", wnsStatus))
            headers.append(("X-WNS-NotificationStatus", wnsStatus))
        }
        if let retryAfter = refusal.retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        if refusal.status == 401 { headers.append(("WWW-Authenticate", "Bearer error=\"invalid_token\"")) }
        return SimulatorHTTPAnswer.make(status: refusal.status, headers: headers)
    }

    /// What WNS says for a status it was told to answer.
    private static func standardDescription(_ status: Int) -> String {
        switch status {
        case 400: "Bad request"
        case 401: "Invalid token"
        case 403: "Forbidden"
        case 404: "The channel URI is not valid"
        case 406: "Throttle limit exceeded"
        case 410: "The channel expired"
        case 413: "The notification payload is too large"
        case 429: "Too many requests"
        case 500: "Internal server error"
        case 503: "Service unavailable"
        default: "HTTP \(status)"
        }
    }
}

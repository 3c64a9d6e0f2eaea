import Foundation
import Hummingbird
import Synchronization

/// The simulator's configuration and locked state, shared by the routes.
final class GCMLegacySimulatorStore: Sendable {
    let configuration: GCMLegacySimulator.Configuration
    let state: Mutex<GCMLegacySimulatorState>

    /// The longest `time_to_live` GCM accepts (4 weeks).
    static let maximumTimeToLive = 2_419_200

    /// The HTML page Google's front end answered a bad key with.
    static let unauthorizedPage =
        "<HTML><HEAD><TITLE>Unauthorized</TITLE></HEAD><BODY BGCOLOR=\"#FFFFFF\" TEXT=\"#000000\"><H1>Unauthorized</H1><H2>Error 401</H2></BODY></HTML>\n"

    /// A request refused as a whole: status and plain-text body.
    private struct Refusal: Error {
        var status: Int
        var body: String
        var retryAfter: Int? = nil
    }

    init(configuration: GCMLegacySimulator.Configuration) {
        self.configuration = configuration
        self.state = Mutex(GCMLegacySimulatorState(seed: configuration.seed))
    }

    /// `POST /gcm/send` (or `/fcm/send`): one message to up to 1000 registration ids (providers.md §5.2).
    func send(_ request: Request) async throws -> Response {
        let (injection, delay) = state.withLock { state in
            state.statistics.requests += 1
            return state.faults.arrive()
        }
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        do {
            switch injection {
            case .status(let status, let retryAfter)?:
                throw Refusal(status: status, body: Self.statusText(status), retryAfter: retryAfter)
            case .throttle(let retryAfter)?:
                throw Refusal(status: 429, body: Self.statusText(429), retryAfter: retryAfter)
            case .delay?, nil:
                break
            }
            try authenticate(request)
            let contentType = SimulatorHTTPAnswer.header(request, "Content-Type")?.lowercased() ?? ""
            guard contentType.hasPrefix("application/json") else {
                throw Refusal(status: 400, body: "Content-Type must be application/json\n")
            }
            let body = Array(try await request.body.collect(upTo: 4 << 20).readableBytesView)
            let message = try parse(body)
            return answer(message, request: request, body: body)
        } catch let refusal as Refusal {
            state.withLock { $0.statistics.rejections[refusal.status, default: 0] += 1 }
            configuration.logger.debug("GCM request refused", metadata: ["status": "\(refusal.status)"])
            var headers = [("Content-Type", refusal.status == 401 ? "text/html; charset=UTF-8" : "text/plain; charset=UTF-8")]
            if let retryAfter = refusal.retryAfter { headers.append(("Retry-After", String(retryAfter))) }
            return SimulatorHTTPAnswer.make(status: refusal.status, headers: headers, body: refusal.body)
        }
    }

    private func authenticate(_ request: Request) throws(Refusal) {
        let authorization = SimulatorHTTPAnswer.header(request, "Authorization") ?? ""
        let key = authorization.hasPrefix("key=") ? String(authorization.dropFirst(4)) : ""
        guard configuration.apiKeys.contains(key) else { throw Refusal(status: 401, body: Self.unauthorizedPage) }
    }

    /// What one request asks for, after the checks GCM makes on the request as a whole.
    private struct Message {
        var registrationIDs: [String]
        /// An error every result gets (the message itself is wrong), if any.
        var commonError: String?
    }

    private func parse(_ body: [UInt8]) throws(Refusal) -> Message {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                throw Refusal(status: 400, body: "JSON_PARSING_ERROR: Unexpected token, expected an object.\n")
            }
            object = parsed
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw Refusal(status: 400, body: "JSON_PARSING_ERROR: Unexpected character at position 0.\n")
        }
        var ids: [String]
        if let list = object["registration_ids"] {
            guard let strings = list as? [String] else {
                throw Refusal(status: 400, body: "Field \"registration_ids\" must be a JSON array: \(list)\n")
            }
            ids = strings
        } else if let to = object["to"] as? String {
            ids = [to]
        } else {
            throw Refusal(status: 400, body: "Missing \"registration_ids\" field\n")
        }
        guard !ids.isEmpty else { throw Refusal(status: 400, body: "Missing \"registration_ids\" field\n") }
        guard ids.count <= configuration.maximumRegistrationIDs else {
            throw Refusal(
                status: 400,
                body: "Number of messages on bulk (\(ids.count)) exceeds maximum allowed (\(configuration.maximumRegistrationIDs))\n")
        }
        for field in ["collapse_key", "restricted_package_name", "condition"] where object[field] != nil && !(object[field] is String) {
            throw Refusal(status: 400, body: "Field \"\(field)\" must be a JSON string: \(object[field]!)\n")
        }
        var message = Message(registrationIDs: ids)
        if let ttl = object["time_to_live"] {
            guard let seconds = (ttl as? NSNumber).map(\.doubleValue), seconds == seconds.rounded(), seconds >= 0,
                seconds <= Double(Self.maximumTimeToLive)
            else {
                message.commonError = "InvalidTtl"
                return message
            }
        }
        if let priority = object["priority"] {
            let text = (priority as? String) ?? (priority as? NSNumber)?.stringValue ?? ""
            guard ["high", "normal", "5", "10"].contains(text) else {
                message.commonError = "InvalidParameters"
                return message
            }
        }
        if let data = object["data"] {
            guard let members = data as? [String: Any] else {
                throw Refusal(status: 400, body: "Field \"data\" must be a JSON object: \(data)\n")
            }
            var size = 0
            for (key, value) in members {
                if key == "from" || key == "message_type" || key.hasPrefix("google") || key.hasPrefix("gcm") {
                    message.commonError = "InvalidDataKey"
                    return message
                }
                size += key.utf8.count + Self.textLength(value)
            }
            if size > configuration.maximumDataBytes {
                message.commonError = "MessageTooBig"
            }
        }
        return message
    }

    /// The `200` answer: one result per registration id, from the message's common error or each id's state.
    private func answer(_ message: Message, request: Request, body: [UInt8]) -> Response {
        let millis = Int64(Date().timeIntervalSince1970 * 1000)
        var delivered = 0
        let document = state.withLock { state -> String in
            var results: [String] = []
            var errors: [String?] = []
            var success = 0
            var canonical = 0
            for id in message.registrationIDs {
                let tokenState = state.tokens[id] ?? .registered
                let error = Self.error(for: id, state: tokenState, commonError: message.commonError)
                errors.append(error)
                if let error {
                    state.statistics.failures[error, default: 0] += 1
                    results.append("{\"error\":\"\(error)\"}")
                    continue
                }
                success += 1
                delivered += 1
                state.statistics.delivered += 1
                state.deliveries[id, default: 0] += 1
                let random = String(state.faults.nextRandom(), radix: 16)
                var result = "{\"message_id\":\"0:\(millis)%\(random)\""
                if case .canonical(let newID) = tokenState {
                    canonical += 1
                    state.statistics.canonicalIDs += 1
                    result += ",\"registration_id\":\(Self.quoted(newID))"
                }
                results.append(result + "}")
            }
            state.statistics.answered += 1
            if configuration.recordPayloads {
                state.accepted.append(
                    GCMLegacySimulator.Accepted(
                        registrationIDs: message.registrationIDs, errors: errors, headers: SimulatorHTTPAnswer.headers(request),
                        body: String(decoding: body, as: UTF8.self)))
            }
            let multicastID = state.faults.nextRandom() >> 1
            let failure = message.registrationIDs.count - success
            let list = results.joined(separator: ",")
            return "{\"multicast_id\":\(multicastID),\"success\":\(success),\"failure\":\(failure),"
                + "\"canonical_ids\":\(canonical),\"results\":[\(list)]}"
        }
        if delivered > 0, let onAccepted = configuration.onAccepted {
            // Every addressed id is a recipient, not only those delivered to: the body lists them all, and a logger
            // shortening the recipients in it must know each one.
            onAccepted(SimulatorDelivery(
                service: "gcm-legacy", recipients: message.registrationIDs,
                fields: [("delivered", "\(delivered) of \(message.registrationIDs.count)")],
                payload: String(decoding: body, as: UTF8.self)))
        }
        return SimulatorHTTPAnswer.make(status: 200, headers: [("Content-Type", "application/json; charset=UTF-8")], body: document)
    }

    /// The `error` of one registration id, or `nil` when it gets a `message_id`.
    private static func error(for id: String, state: GCMLegacySimulator.TokenState, commonError: String?) -> String? {
        if id.isEmpty { return "MissingRegistration" }
        if let commonError { return commonError }
        switch state {
        case .notRegistered: return "NotRegistered"
        case .invalidRegistration: return "InvalidRegistration"
        case .mismatchSenderID: return "MismatchSenderId"
        case .unavailable: return "Unavailable"
        case .registered, .canonical: return nil
        }
    }

    /// The byte length of a data value as GCM counted it: strings as they are, anything else as its JSON text.
    private static func textLength(_ value: Any) -> Int {
        if let text = value as? String { return text.utf8.count }
        guard JSONSerialization.isValidJSONObject([value]),
            let data = try? JSONSerialization.data(withJSONObject: [value], options: [.fragmentsAllowed])
        else { return 4 }
        return max(0, data.count - 2)
    }

    /// `text` as a JSON string literal.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func statusText(_ status: Int) -> String {
        switch status {
        case 429: "Too Many Requests\n"
        case 500: "Internal Server Error\n"
        case 503: "Service Unavailable\n"
        default: "Error \(status)\n"
        }
    }
}

import Foundation
import NIOCore

/// Judges requests: the token endpoint, and `messages:send` in the order FCM checks it (authentication,
/// project, body, target, device), recording the outcome.
///
/// Runs synchronously on the connection's event loop; the shared state it touches is behind the store's mutex.
final class FCMRequestProcessor: SimulatorHTTP2RequestProcessor {
    /// Bodies are kept only up to this many bytes: anything longer is far too big for a message anyway.
    static let bodyCap = 65_536

    private static let sendPathPrefix = "/v1/projects/"
    private static let sendPathSuffix = "/messages:send"
    private static let missingCredentials =
        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
    private static let invalidCredentials =
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."

    let configuration: FCMSimulator.Configuration
    let store: FCMSimulatorStore
    let tokenEndpoint: FCMTokenEndpoint
    let validator: FCMMessageValidator

    init(configuration: FCMSimulator.Configuration, store: FCMSimulatorStore, verifier: FCMAssertionVerifier) {
        self.configuration = configuration
        self.store = store
        self.tokenEndpoint = FCMTokenEndpoint(configuration: configuration, store: store, verifier: verifier)
        self.validator = FCMMessageValidator(minimumTokenLength: configuration.minimumRegistrationTokenLength)
    }

    /// Decides what `request` gets; FCM keeps nothing per connection beyond the HTTP/2 bookkeeping.
    func process(_ request: SimulatorHTTP2Request, connection: SimulatorHTTP2Connection)
        -> SimulatorHTTP2Action<FCMResponse>
    {
        let path = request.header(":path") ?? "/"
        if path == FCMTokenEndpoint.path {
            switch self.store.arriveAtTokenEndpoint() {
            case nil:
                return .respond(self.tokenEndpoint.process(request), delayMilliseconds: 0)
            case .delay(let milliseconds)?:
                return .respond(self.tokenEndpoint.process(request), delayMilliseconds: milliseconds)
            case let injection?:
                return self.inject(injection, tokenEndpoint: true) ?? .hang
            }
        }
        guard let projectID = Self.projectID(inSendPath: path), request.header(":method") == "POST" else {
            return .respond(.notFoundPage(path: path), delayMilliseconds: 0)
        }
        let (injection, faultDelay) = self.store.arrive()
        var delay = faultDelay
        if let injection {
            if case .delay(let milliseconds) = injection {
                delay += milliseconds
            } else if let action = self.inject(injection, tokenEndpoint: false) {
                if case .respond(let response, _) = action {
                    return .respond(response, delayMilliseconds: delay)
                }
                return action
            }
        }
        let response = self.send(request, projectID: projectID)
        if let reason = response.reason {
            self.store.recorder.recordRejection(reason)
        }
        self.configuration.logger.trace(
            "FCM send answered", metadata: ["project": "\(projectID)", "status": "\(response.status)", "reason": "\(response.reason ?? "-")"])
        return .respond(response, delayMilliseconds: delay)
    }

    /// The action of an injection other than a delay; `nil` for a delay (the request is processed).
    private func inject(_ injection: FCMSimulator.Injection, tokenEndpoint: Bool)
        -> SimulatorHTTP2Action<FCMResponse>?
    {
        switch injection {
        case .error(let httpStatus, let status, let errorCode, let message, let retryAfter):
            if tokenEndpoint {
                var response = FCMResponse.oauthError(httpStatus, error: status.lowercased(), description: message)
                if let retryAfter { response.headers.append(("retry-after", String(retryAfter))) }
                self.store.recordTokenRejection(error: status.lowercased())
                return .respond(response, delayMilliseconds: 0)
            }
            let response = FCMResponse.googleError(
                httpStatus, status: status, message: message, errorCode: errorCode, retryAfter: retryAfter)
            self.store.recorder.recordRejection(response.reason ?? status)
            return .respond(response, delayMilliseconds: 0)
        case .delay:
            return nil
        case .hang:
            return .hang
        case .goAway:
            return .goAway(debugText: nil)
        case .resetConnection:
            return .resetConnection
        }
    }

    private func send(_ request: SimulatorHTTP2Request, projectID: String) -> FCMResponse {
        // Authentication comes first: Google's front end answers it before looking at the body.
        guard let authorization = request.header("authorization") else {
            return Self.unauthenticated(Self.missingCredentials, reason: "CREDENTIALS_MISSING")
        }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return Self.unauthenticated(Self.invalidCredentials, reason: "ACCESS_TOKEN_TYPE_UNSUPPORTED")
        }
        guard let grant = self.store.accessToken(String(parts[1])) else {
            return Self.unauthenticated(Self.invalidCredentials, reason: "ACCESS_TOKEN_TYPE_UNSUPPORTED")
        }
        guard grant.expiresAt > Date().timeIntervalSince1970 else {
            return Self.unauthenticated(Self.invalidCredentials, reason: "ACCESS_TOKEN_EXPIRED")
        }
        guard grant.projectID == projectID else {
            return .googleError(
                403, status: "PERMISSION_DENIED",
                message: "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(projectID)' (or it may not exist).")
        }

        guard request.bodyLength <= Self.bodyCap, let body = request.body else {
            if request.bodyLength > Self.bodyCap {
                return .googleError(400, status: "INVALID_ARGUMENT", message: "Message is too big")
            }
            return .invalidArgument("Recipient of the message is not set.", field: "message")
        }
        let parsed: FCMJSONValue
        do {
            parsed = try JSONDecoder().decode(FCMJSONValue.self, from: Data(body.readableBytesView))
        } catch {
            return .invalidArgument("Invalid JSON payload received. Unexpected token.")
        }
        let message: FCMMessageValidator.Valid
        switch self.validator.validate(parsed) {
        case .success(let valid): message = valid
        case .failure(let refusal): return refusal.response
        }
        if let token = message.token {
            switch self.store.deviceStatus(of: token) {
            case .active:
                break
            case .invalid:
                return FCMMessageValidator.invalidToken
            case .unregistered:
                return .googleError(404, status: "NOT_FOUND", message: "Requested entity was not found.", errorCode: "UNREGISTERED")
            case .otherSender:
                return .googleError(403, status: "PERMISSION_DENIED", message: "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH")
            }
        }

        let name = message.validateOnly
            ? "projects/\(projectID)/messages/fake_message_id"
            : "projects/\(projectID)/messages/\(self.store.nextMessageID())"
        var record: FCMSimulator.Accepted?
        if self.configuration.recordPayloads {
            record = FCMSimulator.Accepted(
                projectID: projectID, token: message.token, topic: message.topic, body: String(buffer: body),
                headers: request.headers.map { ($0.name, $0.value) }, name: name, validateOnly: message.validateOnly)
        }
        self.store.recorder.recordAccepted(token: message.validateOnly ? nil : message.token, record: record)
        if let onAccepted = self.configuration.onAccepted {
            // The target is the token, or else the topic or condition (no device to shorten then).
            var fields: [(name: String, value: String)] = [("project", projectID)]
            if message.token == nil, let topic = message.topic { fields.append(("target", topic)) }
            if message.validateOnly { fields.append(("validate_only", "true")) }
            onAccepted(SimulatorDelivery(
                service: "fcm", recipients: message.token.map { [$0] } ?? [], fields: fields,
                payload: String(buffer: body)))
        }
        return .ok(FCMJSONText.object([("name", FCMJSONText.quoted(name))]))
    }

    private static func unauthenticated(_ message: String, reason: String) -> FCMResponse {
        .googleError(
            401, status: "UNAUTHENTICATED", message: message, errorInfoReason: reason,
            extraHeaders: [("www-authenticate", "Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\"")])
    }

    /// The project of `/v1/projects/<id>/messages:send`, or `nil` for any other path.
    static func projectID(inSendPath path: String) -> String? {
        guard path.hasPrefix(sendPathPrefix), path.hasSuffix(sendPathSuffix) else { return nil }
        let projectID = path.dropFirst(sendPathPrefix.count).dropLast(sendPathSuffix.count)
        guard !projectID.isEmpty, !projectID.contains("/") else { return nil }
        return String(projectID)
    }
}

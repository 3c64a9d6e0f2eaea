import Foundation
import Hummingbird

extension HMSSimulatorStore {
    /// `POST /v1/<appId>/messages:send`, in the order Push Kit checks it: faults, authentication, the body, then
    /// each token's state.
    func send(_ request: Request, appID: String, method: String) async throws -> Response {
        guard method == "messages:send" else {
            return HMSAnswer.plain(404)
        }
        let (injection, faultDelay) = arrive()
        var delay = faultDelay
        if case .delay(let milliseconds)? = injection { delay += milliseconds }
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        switch injection {
        case .code(let code, let httpStatus, let msg, let retryAfter)?:
            return refuse(code: code, httpStatus: httpStatus, msg: msg, retryAfter: retryAfter)
        case .status(let httpStatus, let retryAfter)?:
            recordRejection("HTTP \(httpStatus)")
            configuration.logger.debug("HMS send refused", metadata: ["status": "\(httpStatus)"])
            return HMSAnswer.plain(httpStatus, retryAfter: retryAfter)
        case .delay?, nil:
            break
        }

        // Authentication comes first: the front end answers it before looking at the body.
        let authorization = SimulatorHTTPAnswer.header(request, "Authorization") ?? ""
        let bearer = authorization.lowercased().hasPrefix("bearer ") ? String(authorization.dropFirst(7)) : ""
        guard !bearer.isEmpty, let grant = accessToken(bearer), grant.appID == appID else {
            // Also a token of another app: the app id it was issued for must be the one in the path.
            return refuse(code: "80200001", httpStatus: 401, msg: "Oauth authentication error.")
        }
        guard grant.expiresAt > Date().timeIntervalSince1970 else {
            return refuse(code: "80200003", httpStatus: 401, msg: "Oauth Token expired.")
        }

        let body = Array(try await request.body.collect(upTo: 4 << 20).readableBytesView)
        let validator = HMSMessageValidator(
            maximumTokens: configuration.maximumTokensPerRequest, maximumMessageBytes: configuration.maximumMessageBytes)
        let message: HMSMessageValidator.Valid
        switch validator.validate(body) {
        case .success(let valid):
            message = valid
        case .failure(let refusal):
            return refuse(code: refusal.code, httpStatus: refusal.httpStatus, msg: refusal.msg)
        }
        return answer(message, appID: appID, request: request, body: body)
    }

    /// The answer to a valid request: success, a partial success naming the illegal tokens, or `80300007` when every
    /// token is illegal.
    private func answer(_ message: HMSMessageValidator.Valid, appID: String, request: Request, body: [UInt8]) -> Response {
        let minimumLength = configuration.minimumTokenLength
        let illegal = state.withLock { state in
            message.tokens.filter { $0.count < minimumLength || state.unregistered.contains($0) }
        }
        if !message.tokens.isEmpty, illegal.count == message.tokens.count {
            state.withLock { $0.statistics.illegalTokens += illegal.count }
            return refuse(code: "80300007", httpStatus: 400, msg: "All the tokens are invalid")
        }
        let illegalSet = Set(illegal)
        let delivered = message.tokens.filter { !illegalSet.contains($0) }
        let code = illegal.isEmpty ? "80000000" : "80100000"
        let msg: String
        if illegal.isEmpty {
            msg = "Success"
        } else {
            // A JSON text inside the JSON answer, as Push Kit writes it.
            msg = FCMJSONText.object([
                ("success", String(delivered.count)), ("failure", String(illegal.count)),
                ("illegal_tokens", "[" + illegal.map(FCMJSONText.quoted).joined(separator: ",") + "]"),
            ])
        }
        let requestID = nextRequestID()
        let text = String(decoding: body, as: UTF8.self)
        state.withLock { state in
            state.statistics.accepted += 1
            state.statistics.illegalTokens += illegal.count
            if !message.validateOnly {
                state.statistics.delivered += delivered.count
                if configuration.recordTokens { state.acceptedTokens.append(contentsOf: delivered) }
            }
            if configuration.recordPayloads {
                state.accepted.append(
                    HMSSimulator.Accepted(
                        appID: appID, tokens: message.tokens, illegalTokens: illegal, target: message.target, code: code,
                        requestID: requestID, validateOnly: message.validateOnly, body: text,
                        headers: SimulatorHTTPAnswer.headers(request)))
            }
        }
        configuration.logger.trace(
            "HMS send answered",
            metadata: ["app": "\(appID)", "code": "\(code)", "tokens": "\(message.tokens.count)", "illegal": "\(illegal.count)"])
        if let onAccepted = configuration.onAccepted, !delivered.isEmpty || message.target != nil {
            // Every addressed token is a recipient, not only those delivered to: the body lists them all, and a logger
            // shortening the recipients in it must know each one.
            var fields: [(name: String, value: String)] = [
                ("app", appID), ("delivered", "\(delivered.count) of \(message.tokens.count)"),
            ]
            if let target = message.target { fields.append(("target", target)) }
            if message.validateOnly { fields.append(("validate_only", "true")) }
            onAccepted(SimulatorDelivery(service: "hms", recipients: message.tokens, fields: fields, payload: text))
        }
        return HMSAnswer.code(code, httpStatus: 200, msg: msg, requestID: requestID)
    }

    /// Counts and answers a refused send.
    private func refuse(code: String, httpStatus: Int, msg: String, retryAfter: Int? = nil) -> Response {
        recordRejection(code)
        configuration.logger.debug("HMS send refused", metadata: ["status": "\(httpStatus)", "code": "\(code)"])
        return HMSAnswer.code(code, httpStatus: httpStatus, msg: msg, requestID: nextRequestID(), retryAfter: retryAfter)
    }
}

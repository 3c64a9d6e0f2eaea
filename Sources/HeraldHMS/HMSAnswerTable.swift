import HeraldCore

/// Every Huawei Push Kit and token-endpoint answer mapped to what becomes of a batch's deliveries, in one place.
///
/// Push Kit answers `{"code":"…","msg":"…","requestId":"…"}`; the `code` decides, whatever the HTTP status
/// (`200` does not mean delivered). Without a readable code the HTTP status decides.
///
/// | answer | verdict |
/// |---|---|
/// | `80000000` | every token delivered |
/// | `80100000` (partial success) | the `illegal_tokens` of `msg` (a JSON text) are dead tokens, the rest delivered |
/// | `80300007` (every token invalid) | dead tokens, unless every batch of the last minute got it (see ``HMSMisconfigurationDetector``): then ``probablyMisconfigured`` |
/// | `80200001`, `80200003` (access token refused or expired) | a new access token and the batch once more; again: configuration failure |
/// | `80300010` (too many tokens) | the batch split in half and sent again; for one token: message failure |
/// | `80100001`, `80100003`, `80100004`, `80100013`, `80100016`, `80100017`, `80100018`, `80300008` | message failure (the message is wrong, not the token) |
/// | `80300002`, `80300011` (app not allowed to push, or to push high urgency) | configuration failure |
/// | `81000001` (internal error), `80600003` (Push Kit could not reach its OAuth service) | transient, honouring `Retry-After` |
/// | another code | by HTTP status below, else message failure |
/// | no code: 429, 5xx (503 is Push Kit's flow control) | transient, honouring `Retry-After` |
/// | no code: 401, 403, 404, 3xx | configuration failure |
/// | no code: other 4xx | message failure |
/// | no code: 2xx | transient (an answer that says nothing cannot be taken as delivered) |
public enum HMSAnswerTable {
    /// What becomes of one batch's deliveries.
    public enum Verdict: Sendable, Equatable {
        /// Every token of the batch was delivered.
        case delivered
        /// Partial success: these tokens (with their outcome) were refused, every other one delivered.
        case partiallyDelivered(illegalTokens: [String: DeliveryOutcome])
        /// Every token of the batch is invalid: each gets this dead-token outcome, unless the provider judges
        /// itself misconfigured.
        case allTokensInvalid(DeliveryOutcome)
        /// The access token was refused: the provider fetches a new one and sends the batch once more; this is the
        /// outcome when it happens again.
        case accessTokenRejected(DeliveryOutcome)
        /// The batch has too many tokens: the provider splits it; this is the outcome of a batch of one.
        case tooManyTokens(DeliveryOutcome)
        /// Every delivery of the batch gets this outcome.
        case everyone(DeliveryOutcome)
    }

    /// What Push Kit's answer body says.
    struct Answer: Equatable {
        var code: String
        var msg: String?
        var requestID: String?
    }

    /// Success.
    public static let success = "80000000"
    /// Partial success: `msg` names the illegal tokens.
    public static let partialSuccess = "80100000"
    /// Every token of the request is invalid.
    public static let allTokensInvalid = "80300007"
    /// More tokens than Push Kit takes in one request.
    public static let tooManyTokens = "80300010"
    /// The access token was refused (`80200001`) or has expired (`80200003`).
    public static let accessTokenCodes: Set<String> = ["80200001", "80200003"]

    /// The outcome of a batch that got `80300007` in every batch of the last minute: Push Kit's credentials or app
    /// id are probably wrong (the tokens belong to another app), so no token is dropped. Transient and without a
    /// status, so that the provider's circuit breaker and metrics count it as the provider failing.
    public static let probablyMisconfigured = DeliveryOutcome(.transient, reason: "80300007 ProbablyMisconfigured")

    /// Codes that say the message is wrong, whichever token it goes to.
    static let messageFailureCodes: Set<String> = [
        "80100001", "80100003", "80100004", "80100013", "80100016", "80100017", "80100018", "80300008",
    ]
    /// Codes that say the app or its credentials cannot send.
    static let configurationFailureCodes: Set<String> = ["80300002", "80300011"]
    /// Codes worth trying again later.
    static let transientCodes: Set<String> = ["81000001", "80600003"]

    /// The verdict for a `messages:send` answer with `status`, its `body` and `Retry-After` header.
    public static func verdict(status: Int, body: [UInt8], retryAfter: String?) -> Verdict {
        guard let answer = parse(body) else {
            return .everyone(outcome(status: status, reason: "HTTP \(status)", retryAfter: retryAfter))
        }
        let code = answer.code
        switch code {
        case success:
            return .delivered
        case partialSuccess:
            return .partiallyDelivered(illegalTokens: illegalTokens(inMessage: answer.msg, status: status))
        case allTokensInvalid:
            return .allTokensInvalid(DeliveryOutcome(.deadToken, reason: code, status: status))
        case tooManyTokens:
            return .tooManyTokens(DeliveryOutcome(.messageFailure, reason: reason(answer), status: status))
        case _ where accessTokenCodes.contains(code):
            return .accessTokenRejected(DeliveryOutcome(.configurationFailure, reason: code, status: status))
        case _ where messageFailureCodes.contains(code):
            return .everyone(DeliveryOutcome(.messageFailure, reason: reason(answer), status: status))
        case _ where configurationFailureCodes.contains(code):
            return .everyone(DeliveryOutcome(.configurationFailure, reason: reason(answer), status: status))
        case _ where transientCodes.contains(code):
            return .everyone(DeliveryOutcome(.transient, reason: code, status: status, retryAfter: RetryAfter.parse(retryAfter)))
        default:
            // A code this table does not know: the HTTP status says whose fault it is, and the code goes to the logs.
            if (200..<300).contains(status) {
                return .everyone(DeliveryOutcome(.messageFailure, reason: reason(answer), status: status))
            }
            return .everyone(outcome(status: status, reason: reason(answer), retryAfter: retryAfter))
        }
    }

    /// The outcome of an answer without a code (or with one this table does not know), by HTTP status.
    private static func outcome(status: Int, reason: String, retryAfter: String?) -> DeliveryOutcome {
        switch status {
        case 200..<300:
            return DeliveryOutcome(.transient, reason: "InvalidResponse", status: status)
        case 429, 500..<600:
            return DeliveryOutcome(.transient, reason: reason, status: status, retryAfter: RetryAfter.parse(retryAfter))
        case 401, 403, 404, 300..<400:
            // Credentials, permissions, or an endpoint that is not Push Kit's.
            return DeliveryOutcome(.configurationFailure, reason: reason, status: status)
        default:
            return DeliveryOutcome(.messageFailure, reason: reason, status: status)
        }
    }

    /// `<code>: <msg>` when Push Kit said what was wrong, so that the feedback log names the bad field.
    private static func reason(_ answer: Answer) -> String {
        guard let msg = answer.msg?.trimmingWhitespace(), !msg.isEmpty else { return answer.code }
        return "\(answer.code): \(msg.count > 120 ? String(msg.prefix(120)) : msg)"
    }

    /// The refused tokens of a partial success, each with its dead-token outcome.
    ///
    /// `msg` is itself JSON text: `{"success":1,"failure":1,"illegal_tokens":["…"]}`. Newer answers write
    /// `illegalTokens`, as a list or as lists by cause (`{"noRight":["…"]}`), the cause then joining the reason.
    /// An unreadable `msg` names no token: every token counts as delivered rather than be sent twice.
    static func illegalTokens(inMessage msg: String?, status: Int) -> [String: DeliveryOutcome] {
        guard let msg, let document = try? JSONBodyParser.parse(msg) else { return [:] }
        var result: [String: DeliveryOutcome] = [:]
        func add(_ list: BodyValue?, cause: String?) {
            guard case .array(let tokens)? = list else { return }
            let reason = cause.map { "\(partialSuccess) \($0)" } ?? partialSuccess
            for case .string(let token) in tokens {
                result[token] = DeliveryOutcome(.deadToken, reason: reason, status: status)
            }
        }
        for key in ["illegal_tokens", "illegalTokens"] {
            switch document[key] {
            case .array?:
                add(document[key], cause: nil)
            case .object(let causes)?:
                for (cause, list) in causes { add(list, cause: cause) }
            default:
                break
            }
        }
        return result
    }

    /// Reads Push Kit's answer body; `nil` when it has no `code` (an HTML error page, an empty body).
    static func parse(_ body: [UInt8]) -> Answer? {
        guard !body.isEmpty, let document = try? JSONBodyParser.parse(body),
            let code = document["code"]?.scalarText, !code.isEmpty
        else { return nil }
        // `msg` is usually a sentence, for a partial success a JSON text, and may come as an object.
        var msg = document["msg"]?.scalarText
        if msg == nil, let value = document["msg"], value.isContainer { msg = value.jsonText }
        return Answer(code: code, msg: msg, requestID: document["requestId"]?.scalarText)
    }
}

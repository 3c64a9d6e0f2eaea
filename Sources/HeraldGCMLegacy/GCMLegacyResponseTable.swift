import HeraldCore

/// Every legacy GCM answer mapped to per-token delivery outcomes, in one place (providers.md §5.2).
///
/// | answer | outcome |
/// |---|---|
/// | 200, result with `message_id` | delivered (a `registration_id` beside it is the canonical id, reported with the result) |
/// | 200, error `NotRegistered`, `InvalidRegistration`, `MissingRegistration` | dead token |
/// | 200, error `MismatchSenderId`, `InvalidPackageName` | subscriber failure |
/// | 200, error `Unavailable`, `InternalServerError`, `DeviceMessageRateExceeded`, `TopicsMessageRateExceeded` | transient, honouring `Retry-After` |
/// | 200, error `MessageTooBig`, `InvalidDataKey`, `InvalidTtl`, `InvalidParameters`, others | message failure |
/// | 200, error `InvalidApnsCredential` | configuration failure |
/// | 200 that is not a results document of the right length | transient, every token |
/// | 400 (bad JSON or fields) | message failure, every token |
/// | 401 (bad API key), 3xx, 403, 404 | configuration failure, every token |
/// | 429, 5xx | transient, every token, honouring `Retry-After` |
public enum GCMLegacyResponseTable {
    /// The results of a request for `count` registration ids answered with `status` and `body`.
    public static func results(status: Int, body: [UInt8], retryAfter: String?, count: Int) -> [GCMLegacyResult] {
        let delay = RetryAfter.parse(retryAfter)
        let everyone: DeliveryOutcome
        switch status {
        case 200:
            if let results = parseResults(body, count: count, retryAfter: delay) { return results }
            everyone = DeliveryOutcome(.transient, reason: "InvalidResponse", status: status)
        case 400:
            everyone = DeliveryOutcome(.messageFailure, reason: errorText(body) ?? "HTTP 400", status: status)
        case 429, 500..<600:
            everyone = DeliveryOutcome(.transient, reason: "HTTP \(status)", status: status, retryAfter: delay)
        case 401:
            everyone = DeliveryOutcome(.configurationFailure, reason: "Unauthorized", status: status)
        case 402..<500:
            everyone = DeliveryOutcome(.messageFailure, reason: "HTTP \(status)", status: status)
        default:
            // A redirect or 403/404 means the endpoint is not a GCM send endpoint.
            everyone = DeliveryOutcome(.configurationFailure, reason: "HTTP \(status)", status: status)
        }
        return Array(repeating: GCMLegacyResult(everyone), count: count)
    }

    /// The outcome of a per-token `error` code.
    public static func outcome(error: String, retryAfter: Duration?) -> DeliveryOutcome {
        switch error {
        case "NotRegistered", "InvalidRegistration", "MissingRegistration":
            return DeliveryOutcome(.deadToken, reason: error, status: 200)
        case "MismatchSenderId", "InvalidPackageName":
            return DeliveryOutcome(.subscriberFailure, reason: error, status: 200)
        case "Unavailable", "InternalServerError", "DeviceMessageRateExceeded", "TopicsMessageRateExceeded":
            return DeliveryOutcome(.transient, reason: error, status: 200, retryAfter: retryAfter)
        case "InvalidApnsCredential":
            return DeliveryOutcome(.configurationFailure, reason: error, status: 200)
        default:
            // MessageTooBig, InvalidDataKey, InvalidTtl, InvalidParameters and unknown codes: the message is wrong.
            return DeliveryOutcome(.messageFailure, reason: error, status: 200)
        }
    }

    /// The per-index results of a 200 body, or `nil` when it is not a results document for `count` tokens.
    static func parseResults(_ body: [UInt8], count: Int, retryAfter: Duration?) -> [GCMLegacyResult]? {
        guard let document = try? JSONBodyParser.parse(body), case .array(let entries)? = document["results"],
            entries.count == count
        else { return nil }
        var results: [GCMLegacyResult] = []
        results.reserveCapacity(count)
        for entry in entries {
            if case .string(let error)? = entry["error"] {
                results.append(GCMLegacyResult(outcome(error: error, retryAfter: retryAfter)))
            } else if entry["message_id"]?.scalarText != nil {
                var canonical: String?
                if case .string(let id)? = entry["registration_id"], !id.isEmpty { canonical = id }
                let outcome = DeliveryOutcome(.delivered, reason: canonical == nil ? nil : "CanonicalRegistrationID", status: 200)
                results.append(GCMLegacyResult(outcome, canonicalRegistrationID: canonical))
            } else {
                return nil
            }
        }
        return results
    }

    /// The first line of a plain-text error body (`JSON_PARSING_ERROR: …`), shortened.
    private static func errorText(_ body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingWhitespace()
        guard let line, !line.isEmpty else { return nil }
        return line.count > 120 ? String(line.prefix(120)) : line
    }
}

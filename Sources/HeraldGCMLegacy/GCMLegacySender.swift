import AsyncHTTPClient
import HeraldCore
import HeraldWebhook
import Logging
import NIOCore

/// Sends one multicast request to the legacy GCM endpoint and splits its answer per token.
struct GCMLegacySender: Sendable {
    let client: HTTPClient
    let endpoint: String
    let apiKey: String
    let timeout: Duration
    let logger: Logger

    /// The largest response read: 1000 results of about 60 bytes each, with room to spare.
    static let maximumResponseBytes = 1 << 20

    /// `POST endpoint` with `{"registration_ids":[…],<message members>}`; one result per target, in order.
    func send(_ message: GCMLegacyMessage, to targets: [DeliveryTarget]) async -> [GCMLegacyResult] {
        var json = JSONWriter(capacity: 64 + targets.count * 170 + message.members.utf8.count)
        json.beginObject()
        json.key("registration_ids")
        json.beginArray()
        for target in targets { json.string(target.token) }
        json.endArray()
        json.raw(message.members)
        json.endObject()

        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "key=\(apiKey)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Herald/\(HeraldVersion.current)")
        request.body = .bytes(ByteBuffer(bytes: json.bytes))
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            let body = try await response.body.collect(upTo: Self.maximumResponseBytes)
            let status = Int(response.status.code)
            let results = GCMLegacyResponseTable.results(
                status: status, body: Array(body.readableBytesView), retryAfter: response.headers.first(name: "Retry-After"),
                count: targets.count)
            logger.debug(
                "GCM multicast answered",
                metadata: [
                    "status": "\(status)", "tokens": "\(targets.count)",
                    "delivered": "\(results.count(where: { $0.outcome.outcome == .delivered }))",
                ])
            return results
        } catch {
            let outcome = DeliveryOutcome(.transient, reason: OutboundErrorReason.describe(error))
            return Array(repeating: GCMLegacyResult(outcome), count: targets.count)
        }
    }
}

import HeraldCore
import HeraldIntake
import Logging

/// Stores one suj-pusher message in Herald's store: parsed, routed, and each of its sends
/// committed through the intake.
struct SujPusherHandler: Sendable {
    let intake: Intake
    let router: SujPusherRouter
    let metrics: FrontEndRequestCounter
    let logger: Logger

    /// The longest wait between attempts while the store cannot take a message.
    static let maximumBackoff: Duration = .seconds(5)

    /// Handles `text`, taken from `input` (`list` or `channel`).
    ///
    /// A message that is not a JSON object is logged and dropped, as suj-pusher did. While the
    /// store is unavailable or the backlog full, the sends not yet committed are tried again with
    /// backoff (never one already committed), so the message is never lost nor sent twice by this node.
    ///
    /// - Returns: `true` once the message is in the store (or was dropped): its copy in Redis may
    ///   go; `false` when cancelled before that, and it must stay for the next start.
    func handle(_ text: String, input: String) async -> Bool {
        guard case .object(let members)? = try? JSONBodyParser.parse(text) else {
            logger.warning("Message has bad json format, discarding", metadata: ["input": "\(input)", "bytes": "\(text.utf8.count)"])
            metrics.count(input, result: "discarded", reason: "bad_json")
            return true
        }
        var pending = router.route(members, now: intake.clock.nowSeconds())
        if pending.isEmpty {
            metrics.count(input, result: "discarded", reason: "nothing_to_send")
            return true
        }
        var backoff: Duration = .milliseconds(100)
        while let send = pending.first {
            do {
                try await intake.send(send)
                pending.removeFirst()
            } catch where error.code == .unavailable || error.code == .overloaded {
                logger.warning("cannot store a message yet; trying again", metadata: ["error": "\(error)", "input": "\(input)"])
                do {
                    try await Task.sleep(for: backoff)
                } catch {
                    return false
                }
                backoff = min(backoff * 2, Self.maximumBackoff)
            } catch {
                // Refused for good (a provider missing, no usable id): the other parts still go.
                logger.warning("a part of a message was refused", metadata: ["error": "\(error)", "provider": "\(send.proto)", "input": "\(input)"])
                pending.removeFirst()
            }
        }
        metrics.count(input, result: "accepted")
        return true
    }
}

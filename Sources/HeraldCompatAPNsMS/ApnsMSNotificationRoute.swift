import HeraldCore
import HeraldIntake
import Hummingbird
import Logging

/// `POST /notification` (compat.md §4.2, §4.3): checks the body, sends it once through the
/// intake, and answers with APNs's answer to that attempt, or 202 when none came in time.
struct ApnsMSNotificationRoute: Sendable {
    /// The largest body read; apns-ms had none, but nothing near it is a notification.
    static let maxBodySize = 1 << 20
    /// How long APNs's answer is waited for (apns-ms waited for the write and 500 ms).
    static let answerWait: Duration = .seconds(5)

    let intake: Intake
    let provider: String
    let origin: DeliveryOrigin
    let logger: Logger

    /// The answer to a body.
    func handle(_ body: [UInt8]) async -> Response {
        do throws(ApnsMSError) {
            return try await send(body)
        } catch {
            logger.debug("apns-ms notification refused", metadata: ["status": "\(error.status.code)", "error": "\(error.text ?? "")"])
            return error.response
        }
    }

    private func send(_ body: [UInt8]) async throws(ApnsMSError) -> Response {
        let intake = self.intake
        let submission = try await ApnsMSSubmission(
            body: body,
            admit: { () async throws(ApnsMSError) in
                do throws(IntakeError) {
                    try await intake.admit()
                } catch {
                    throw ApnsMSError(refusal: error)
                }
            })
        let payload = PreparedPayload(
            body: submission.payload, headers: submission.headers, label: origin.rawValue, reference: submission.identifier)
        // No retry: the answer to this one attempt is final and the client decides (§4.3).
        let send = RawSend(proto: provider, tokens: [submission.deviceToken], payload: payload, origin: origin, maxAttempts: 1)
        let answers: [String: DeliveryOutcome]
        do {
            answers = try await intake.send(send, awaitingFirstAnswersFor: Self.answerWait)
        } catch {
            if error.code != .overloaded {
                logger.error("apns-ms notification not accepted", metadata: ["error": "\(error)", "identifier": "\(submission.identifier)"])
            }
            throw ApnsMSError(refusal: error)
        }
        let outcome = answers[submission.deviceToken.lowercased()]
        if let error = ApnsMSAnswerTable.error(for: outcome, identifier: submission.identifier) {
            logger.info("APNs refused an apns-ms notification", metadata: [
                "identifier": "\(submission.identifier)", "status": "\(outcome?.status.map(String.init) ?? "none")",
                "reason": "\(outcome?.reason ?? "")",
            ])
            throw error
        }
        return ApnsMSResponse.json(.accepted, submission.echo)
    }
}

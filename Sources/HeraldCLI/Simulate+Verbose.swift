import Foundation
import HeraldSimulators
import Logging

extension Simulate {
    /// With `--verbose`, the hook every simulator calls for each request it accepted, logging it as one line;
    /// `nil` without, so the simulators do no extra work.
    func acceptedRequestLog(_ logger: Logger) -> SimulatorDeliveryHandler? {
        guard verbose else { return nil }
        return { delivery in
            logger.info("\(AcceptedRequestLine.message(delivery))", metadata: AcceptedRequestLine.metadata(delivery))
        }
    }
}

/// One accepted request as `herald simulate --verbose` logs it: the metadata says which simulator, whom (shortened)
/// and the headers that decide the delivery; the message is `accepted <payload>`, on one line.
enum AcceptedRequestLine {
    /// How many characters of a token are shown; enough to tell devices apart, too few to push to one.
    static let shownPrefix = 8
    /// How many recipients of a multicast are listed before the rest are only counted.
    static let listedRecipients = 3

    /// `simulator`, `token` (when there is a recipient) and the delivery's fields.
    static func metadata(_ delivery: SimulatorDelivery) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["simulator": "\(delivery.service)"]
        if !delivery.recipients.isEmpty {
            metadata["token"] = "\(recipients(delivery.recipients))"
        }
        for field in delivery.fields {
            metadata[field.name] = "\(field.value)"
        }
        return metadata
    }

    /// `accepted <payload>`, with every recipient's full token in the payload (FCM and legacy GCM bodies carry it)
    /// shortened, and control characters escaped so that the line stays one line.
    static func message(_ delivery: SimulatorDelivery) -> String {
        guard !delivery.payload.isEmpty else { return "accepted (empty payload)" }
        var payload = delivery.payload
        for recipient in delivery.recipients where recipient.count > shownPrefix {
            payload = payload.replacingOccurrences(of: recipient, with: shortened(recipient))
        }
        return "accepted " + oneLine(payload)
    }

    /// The first ``shownPrefix`` characters of `token` and `…`, or `token` itself when it is that short.
    static func shortened(_ token: String) -> String {
        token.count > shownPrefix ? String(token.prefix(shownPrefix)) + "…" : token
    }

    /// Up to ``listedRecipients`` shortened tokens, then how many more there were.
    static func recipients(_ tokens: [String]) -> String {
        let listed = tokens.prefix(listedRecipients).map(shortened).joined(separator: ",")
        return tokens.count > listedRecipients ? listed + " (+\(tokens.count - listedRecipients) more)" : listed
    }

    /// `text` with line breaks and other control characters written as escapes.
    static func oneLine(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

import HeraldIntake
import HTTPTypes
import Hummingbird
import NIOCore

/// Every answer of the apns-ms port other than a success, with apns-ms's exact statuses and texts
/// (compat.md §4.1, §4.3, §4.4), turned into a response in one place (``response``).
struct ApnsMSError: Error, Sendable, Equatable {
    private enum Kind: Equatable {
        case notFound
        case methodNotAllowed
        case unauthorized
        case bodyTooLarge
        case missingData
        case decoding(GoJSONError)
        case invalidAlert
        case queueFull
        case rateLimited(retryAfterSeconds: Int)
        case tokenNotHex
        case tokenLength(Int)
        case identifierNotHex
        case identifierLength(Int)
        case reservedAPS
        case payloadTooLarge(Int)
        case refused(text: String, identifier: String)
        case worker(String)
        case internalError(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// A path other than the two routes: Go's `404 page not found`.
    static let notFound = ApnsMSError(.notFound)
    /// Another method on one of the two routes.
    static let methodNotAllowed = ApnsMSError(.methodNotAllowed)
    /// The source address is not in `server.acl.publish` (compat.md §1.1).
    static let unauthorized = ApnsMSError(.unauthorized)
    /// A body past ``ApnsMSNotificationRoute/maxBodySize``, in the words of Go's `http.MaxBytesReader`.
    static let bodyTooLarge = ApnsMSError(.bodyTooLarge)
    /// Check 1: an empty or blank body.
    static let missingData = ApnsMSError(.missingData)
    /// Check 2: the decoder's message.
    static func decoding(_ error: GoJSONError) -> ApnsMSError { ApnsMSError(.decoding(error)) }
    /// Check 3.
    static let invalidAlert = ApnsMSError(.invalidAlert)
    /// Check 4: the intake is overloaded.
    static let queueFull = ApnsMSError(.queueFull)
    /// The source is over `server.rate_limit.publish`: apns-ms's own overload answer (check 4's), plus `Retry-After`.
    static func rateLimited(retryAfterSeconds: Int) -> ApnsMSError { ApnsMSError(.rateLimited(retryAfterSeconds: retryAfterSeconds)) }
    /// Check 5.
    static let tokenNotHex = ApnsMSError(.tokenNotHex)
    /// Check 6, with the token's length in bytes.
    static func tokenLength(_ bytes: Int) -> ApnsMSError { ApnsMSError(.tokenLength(bytes)) }
    /// Check 7.
    static let identifierNotHex = ApnsMSError(.identifierNotHex)
    /// Check 8, with the identifier's length in bytes.
    static func identifierLength(_ bytes: Int) -> ApnsMSError { ApnsMSError(.identifierLength(bytes)) }
    /// Check 9: `customValues` has a key `aps`.
    static let reservedAPS = ApnsMSError(.reservedAPS)
    /// Check 10, with the payload's size in bytes.
    static func payloadTooLarge(_ bytes: Int) -> ApnsMSError { ApnsMSError(.payloadTooLarge(bytes)) }
    /// APNs refused the notification: `text` is the binary protocol's status text (``ApnsMSAnswerTable``).
    static func refused(_ text: String, identifier: String) -> ApnsMSError { ApnsMSError(.refused(text: text, identifier: identifier)) }
    /// No answer from APNs because the connection failed.
    static func worker(_ description: String) -> ApnsMSError { ApnsMSError(.worker(description)) }
    /// Herald itself failed (the database): 500 with the text.
    static func internalError(_ text: String) -> ApnsMSError { ApnsMSError(.internalError(text)) }

    /// What the intake's refusal of a send is on this port: an overload is apns-ms's full queue;
    /// anything else means Herald cannot send (its store, or a provider that takes no APNs token).
    init(refusal: IntakeError) {
        self = refusal.code == .overloaded ? .queueFull : .internalError(refusal.message)
    }

    /// The status.
    var status: HTTPResponse.Status {
        switch kind {
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .unauthorized: .forbidden
        case .queueFull, .rateLimited: .serviceUnavailable
        case .internalError: .internalServerError
        default: .conflict
        }
    }

    /// The `error` text of the JSON body (`nil`: 404 and 405, which have none).
    var text: String? {
        switch kind {
        case .notFound, .methodNotAllowed: nil
        case .unauthorized: "Unauthorized"
        case .bodyTooLarge: "http: request body too large"
        case .missingData: "Notification data is missing"
        case .decoding(let error): error.message
        case .invalidAlert: "apns/notification: Invalid alert dictionary format"
        case .queueFull, .rateLimited: "apns: Queue is full, dismissing command"
        case .tokenNotHex: "apns/notification: Device token should be hex encoded 32 bytes long binary string"
        case .tokenLength(let bytes): "apns/notification: Device token length is \(bytes) bytes but should be 32 bytes"
        case .identifierNotHex: "apns/notification: Notification identifier should be hex encoded 4 bytes long binary string"
        case .identifierLength(let bytes): "apns/notification: Notification identifier length is \(bytes) bytes but should be 4 bytes"
        case .reservedAPS:
            "json: error calling MarshalJSON for type *apns.Payload: apns/notification: 'aps' is a reserved and cannot be used for custom field"
        case .payloadTooLarge(let bytes): "apns/notification: Notification payload size is \(bytes) bytes but should be 4096 bytes at maximum"
        case .refused(let text, let identifier): "apns: \(text) for notification #\(identifier)"
        case .worker(let description): "apns/worker: \(description)"
        case .internalError(let text): text
        }
    }

    /// The answer: Go's plain-text 404, else `{"error":"<text>"}` (an empty body for 405) as
    /// `application/json; charset=utf8`; a rate-limit refusal adds `Retry-After`, which apns-ms
    /// clients ignore and others can use.
    var response: Response {
        if kind == .notFound {
            return Response(
                status: .notFound,
                headers: [.contentType: "text/plain; charset=utf-8", .init("X-Content-Type-Options")!: "nosniff"],
                body: .init(byteBuffer: ByteBuffer(string: "404 page not found\n")))
        }
        guard let text else { return ApnsMSResponse.json(status, "") }
        var writer = GoJSONWriter(capacity: text.utf8.count + 12)
        writer.beginObject()
        writer.key("error")
        writer.string(text)
        writer.endObject()
        var response = ApnsMSResponse.json(status, writer.text)
        if case .rateLimited(let seconds) = kind { response.headers[.retryAfter] = String(seconds) }
        return response
    }
}

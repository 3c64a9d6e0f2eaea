import HeraldCore
import HeraldIntake
import HTTPTypes
import Hummingbird
import NIOCore

/// `POST /send` (realm `publish`): a payload prepared for one provider, sent to raw tokens that
/// need not be registered, through the same durable queue as every delivery.
///
/// The body is JSON: `proto`, `tokens` (an array of strings), `payload` (an object, sent as its
/// JSON, or a string, sent as it is: WNS XML), optional `headers` (provider headers such as
/// `apns-push-type`, `x-wns-type`), `expiration` (Unix seconds), `label` (the event name it is
/// filed under in dead letters), `reference` (the sender's id, written with its feedback) and
/// `max_attempts` (fewer attempts than `delivery.max_attempts`; 1: no retry); `expiration` and
/// `max_attempts` are JSON numbers (`5` or `5.0`, not `"5"`). Answers `202` with
/// `{"queued":<n>}` once every delivery is stored.
/// Its feedback is `GET /feedback?origin=herald`.
public struct RawSendRoutes: Sendable {
    /// The origin of raw sends made through this route.
    public static let origin = DeliveryOrigin("herald")

    let intake: Intake
    let authorizer: Authorizer

    /// Creates the route.
    public init(intake: Intake, authorizer: Authorizer) {
        self.intake = intake
        self.authorizer = authorizer
    }

    /// Adds the route to `router`.
    public func register(on router: Router<HeraldRequestContext>) {
        let authorizer = self.authorizer
        router.post("/send") { request, context -> Response in
            let scopes = try authorizer.authorize(request, context: context, realm: .publish)
            return try await send(request, scopes: scopes)
        }
    }

    func send(_ request: Request, scopes: TokenScopes? = nil) async throws -> Response {
        let buffer = try await request.collectBody()
        let body: BodyValue
        do {
            body = try JSONBodyParser.parse(buffer.readableBytesView)
        } catch {
            throw APIError.badRequest("Invalid JSON: \(error)")
        }
        let raw = try Self.rawSend(from: body)
        // An app's token sends through its own providers only, as if no other were configured.
        if let scopes, !scopes.allows(provider: raw.proto) { throw APIError.invalidValue("proto") }
        let queued = try await answering { () async throws(IntakeError) in try await intake.send(raw) }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("queued")
        writer.number(queued)
        writer.endObject()
        return .json(writer.text, status: .accepted)
    }

    /// Reads the request's fields; every malformed one is a 400 naming it.
    static func rawSend(from body: BodyValue) throws(APIError) -> RawSend {
        guard body.objectMembers != nil else { throw .badRequest("Expected an object") }
        guard case .string(let proto)? = body["proto"], !proto.isEmpty else { throw .invalidValue("proto") }
        guard case .array(let list)? = body["tokens"], !list.isEmpty else { throw .invalidValue("tokens") }
        var tokens: [String] = []
        for element in list {
            guard case .string(let token) = element else { throw .invalidValue("tokens") }
            tokens.append(token)
        }
        let text: String
        switch body["payload"] {
        case .object(let members)?: text = BodyValue.object(members).jsonText
        case .string(let string)?: text = string
        default: throw .invalidValue("payload")
        }
        var headers: [String: String] = [:]
        if let given = body["headers"] {
            guard case .object(let members) = given else { throw .invalidValue("headers") }
            for (name, value) in members {
                guard let scalar = value.scalarText else { throw .invalidValue("headers") }
                headers[name] = scalar
            }
        }
        var expiration: Int64?
        if let given = body["expiration"] {
            guard let value = given.wholeNumber else { throw .invalidValue("expiration") }
            expiration = value
        }
        var label = "raw"
        if let given = body["label"] {
            guard case .string(let text) = given, !text.isEmpty else { throw .invalidValue("label") }
            label = text
        }
        var reference: String?
        if let given = body["reference"] {
            guard case .string(let text) = given else { throw .invalidValue("reference") }
            reference = text
        }
        var maxAttempts: Int?
        if let given = body["max_attempts"] {
            guard let value = given.wholeNumber, value >= 1 else { throw .invalidValue("max_attempts") }
            maxAttempts = Int(value)
        }
        return RawSend(
            proto: proto, tokens: tokens,
            payload: PreparedPayload(body: text, headers: headers, expiration: expiration, label: label, reference: reference),
            origin: origin, maxAttempts: maxAttempts)
    }
}

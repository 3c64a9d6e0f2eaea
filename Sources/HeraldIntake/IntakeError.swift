import HeraldCore

/// Why the intake refused something: every front-end's one error type.
///
/// It speaks no wire protocol. The HTTP routes, the UDP port and each compat front-end map it to
/// their own answer (a status and a JSON body, an `ERROR ...` reply, a log line) in one place each,
/// by its ``code``; ``message`` is the text for humans.
public struct IntakeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal it is; front-ends switch on it. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        // Raw values are metric labels and log text.
        private enum Base: String {
            case invalidRequest = "invalid_request", unknownSubscriber = "unknown_subscriber", unknownProvider = "unknown_provider"
            case invalidToken = "invalid_token", destinationNotAllowed = "destination_not_allowed", overloaded, unavailable
            case idempotencyKeyReused = "idempotency_key_reused", unknownPublish = "unknown_publish", notScheduled = "not_scheduled"
            case outOfScope = "out_of_scope", nameTaken = "name_taken"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The request is malformed or a value is out of range; nothing changed.
        public static let invalidRequest = Code(.invalidRequest)
        /// A unicast or test names a subscriber that does not exist.
        public static let unknownSubscriber = Code(.unknownSubscriber)
        /// No provider of that name is configured.
        public static let unknownProvider = Code(.unknownProvider)
        /// A token the provider cannot take.
        public static let invalidToken = Code(.invalidToken)
        /// A token whose destination is a literal address that `outbound.deny`/`allow` forbid.
        public static let destinationNotAllowed = Code(.destinationNotAllowed)
        /// Too much accepted work is waiting: try again after ``IntakeError/retryAfterSeconds``.
        public static let overloaded = Code(.overloaded)
        /// The store cannot be used; nothing was accepted.
        public static let unavailable = Code(.unavailable)
        /// An idempotency key already used for a different publish; nothing was published.
        public static let idempotencyKeyReused = Code(.idempotencyKeyReused)
        /// No publish has that id (or its receipt was pruned).
        public static let unknownPublish = Code(.unknownPublish)
        /// The publish is no longer scheduled (it started, finished or was cancelled): it cannot be cancelled.
        public static let notScheduled = Code(.notScheduled)
        /// The caller's API token does not cover it (an event its patterns do not name); nothing changed.
        public static let outOfScope = Code(.outOfScope)
        /// Something of that name exists already (an API token); nothing changed.
        public static let nameTaken = Code(.nameTaken)

        public var description: String { base.rawValue }
    }

    private enum Kind: Equatable {
        case invalidRequest(String)
        case unknownSubscriber(SubscriberID)
        case unknownProvider(String)
        case invalidToken(proto: String)
        case destinationNotAllowed(host: String)
        case overloaded(retryAfterSeconds: Int)
        case unavailable
        case idempotencyKeyReused
        case unknownPublish(String)
        case notScheduled(state: String)
        case outOfScope(String)
        case nameTaken(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// A malformed request, with the text its sender sees (`Invalid value for `ttl'`).
    public static func invalidRequest(_ message: String) -> IntakeError { IntakeError(.invalidRequest(message)) }
    /// A unicast or test to an id that is no subscriber.
    public static func unknownSubscriber(_ id: SubscriberID) -> IntakeError { IntakeError(.unknownSubscriber(id)) }
    /// A provider name that is not configured.
    public static func unknownProvider(_ name: String) -> IntakeError { IntakeError(.unknownProvider(name)) }
    /// A token `proto` cannot take.
    public static func invalidToken(proto: String) -> IntakeError { IntakeError(.invalidToken(proto: proto)) }
    /// A destination whose host is a literal address the provider may not connect to.
    public static func destinationNotAllowed(host: String) -> IntakeError { IntakeError(.destinationNotAllowed(host: host)) }
    /// The backlog is over its bound.
    public static func overloaded(retryAfterSeconds: Int) -> IntakeError { IntakeError(.overloaded(retryAfterSeconds: retryAfterSeconds)) }
    /// The store cannot be used.
    public static let unavailable = IntakeError(.unavailable)
    /// An idempotency key sent before with another event or body.
    public static let idempotencyKeyReused = IntakeError(.idempotencyKeyReused)
    /// A publish id with no receipt.
    public static func unknownPublish(_ id: String) -> IntakeError { IntakeError(.unknownPublish(id)) }
    /// A publish that is no longer scheduled, in `state`.
    public static func notScheduled(state: String) -> IntakeError { IntakeError(.notScheduled(state: state)) }
    /// The caller's token does not cover what it asked for, described by `what`.
    public static func outOfScope(_ what: String) -> IntakeError { IntakeError(.outOfScope(what)) }
    /// A token named `name` exists.
    public static func nameTaken(_ name: String) -> IntakeError { IntakeError(.nameTaken(name)) }

    /// What kind of refusal it is.
    public var code: Code {
        switch kind {
        case .invalidRequest: .invalidRequest
        case .unknownSubscriber: .unknownSubscriber
        case .unknownProvider: .unknownProvider
        case .invalidToken: .invalidToken
        case .destinationNotAllowed: .destinationNotAllowed
        case .overloaded: .overloaded
        case .unavailable: .unavailable
        case .idempotencyKeyReused: .idempotencyKeyReused
        case .unknownPublish: .unknownPublish
        case .notScheduled: .notScheduled
        case .outOfScope: .outOfScope
        case .nameTaken: .nameTaken
        }
    }

    /// The text for the sender.
    public var message: String {
        switch kind {
        case .invalidRequest(let message): message
        case .unknownSubscriber(let id): "Unknown subscriber \(id)"
        case .unknownProvider(let name): "Unknown provider \(name)"
        case .invalidToken(let proto): "Invalid token for \(proto)"
        case .destinationNotAllowed(let host): "Destination not allowed: \(host)"
        case .overloaded: "Too much work is waiting; try again later"
        case .unavailable: "Service Unavailable"
        case .idempotencyKeyReused: "Idempotency-Key was already used for a different request"
        case .unknownPublish(let id): "Unknown publish \(id)"
        case .notScheduled(let state): "The publish is not scheduled any more (\(state))"
        case .outOfScope(let what): "The token does not cover \(what)"
        case .nameTaken(let name): "A token named \(name) exists"
        }
    }

    /// For ``Code/overloaded``: when to try again.
    public var retryAfterSeconds: Int? {
        if case .overloaded(let seconds) = kind { seconds } else { nil }
    }

    /// For ``Code/unknownSubscriber``: the id.
    public var subscriberID: SubscriberID? {
        if case .unknownSubscriber(let id) = kind { id } else { nil }
    }

    public var description: String { "\(code): \(message)" }
}

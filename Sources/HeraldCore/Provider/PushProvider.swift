/// What a subscriber sent as its token at registration.
public struct TokenInput: Sendable {
    /// The `token` field.
    public var token: BodyValue?
    /// The whole request body, for kinds that read more fields (Web Push `p256dh`, `auth`).
    public var body: BodyValue

    /// Creates a token input.
    public init(token: BodyValue?, body: BodyValue = .object([])) {
        self.token = token
        self.body = body
    }
}

/// A token after validation: the text to store and what identifies the subscriber.
public struct NormalizedToken: Sendable, Equatable {
    /// The normalized token to store (lower-cased APNs hex, compact PushSubscription JSON, ...).
    public var token: String
    /// What makes two registrations the same subscriber (usually the token itself).
    public var identity: String

    /// Creates a normalized token.
    public init(token: String, identity: String? = nil) {
        self.token = token
        self.identity = identity ?? token
    }
}

/// The per-subscriber facts that change what a provider renders.
///
/// The pipeline renders a message once per distinct variant, so a kind reduces a
/// subscriber to only what it uses (a webhook uses only `silent`).
public struct MessageVariant: Hashable, Sendable {
    /// The subscriber's language, if the kind localizes.
    public var lang: String?
    /// Whether the subscription is silent (`ignore_message`).
    public var silent: Bool
    /// The badge number to send, if the kind counts badges.
    public var badge: Int?
    /// The subscriber's OS version, if the kind uses it (MPNS).
    public var version: String?

    /// Creates a variant.
    public init(lang: String? = nil, silent: Bool = false, badge: Int? = nil, version: String? = nil) {
        self.lang = lang
        self.silent = silent
        self.badge = badge
        self.version = version
    }
}

/// Where one delivery goes.
public struct DeliveryTarget: Sendable, Equatable {
    /// The subscriber (`nil`: a raw token, never registered).
    public var subscriberID: SubscriberID?
    /// Its stored token.
    public var token: String
    /// The publish (or raw send) the delivery belongs to: with the subscriber, or the raw token, it names
    /// the delivery, the same on every attempt of it (retries, a crash's resend, a replayed dead letter);
    /// `nil` when the caller knows none.
    ///
    /// Kept apart from the recipient so that the hot path shares one string per publish instead of
    /// building one per delivery for the kinds that never read it.
    public var publishID: String?

    /// Creates a target.
    public init(subscriberID: SubscriberID?, token: String, publishID: String? = nil) {
        self.subscriberID = subscriberID
        self.token = token
        self.publishID = publishID
    }
}

/// The result of rendering one variant of a notification.
public enum RenderResult<Message: Sendable>: Sendable {
    /// Send this message.
    case send(Message)
    /// Nothing is sent to this variant, and that is not a failure (a silent toast).
    case skip(reason: String)
    /// The notification cannot be sent to this variant (too large, a failing provider template).
    case fail(DeliveryOutcome)
}

/// A snapshot of a provider's connections, for the `herald_provider_connections` and
/// `herald_provider_streams` gauges.
public struct ProviderConnectionStatistics: Sendable, Equatable {
    /// Open connections (HTTP/2: ready ones).
    public var connections: Int
    /// Requests in flight on those connections (HTTP/2: streams in use).
    public var streamsInUse: Int
    /// Requests waiting for a free stream or connection.
    public var queued: Int

    /// Creates a snapshot.
    public init(connections: Int, streamsInUse: Int, queued: Int = 0) {
        self.connections = connections
        self.streamsInUse = streamsInUse
        self.queued = queued
    }
}

/// A configured push provider: a named instance of a kind, the `proto` clients register with.
///
/// A kind validates tokens, renders the per-subscriber message and delivers it,
/// reporting a typed ``DeliveryOutcome``. The pipeline never looks inside
/// ``Message``, so new kinds plug in without touching it.
public protocol PushProvider: Sendable {
    /// The rendered, ready-to-send form of a notification for one variant.
    associatedtype Message: Sendable

    /// The provider's name: the `proto` clients register with.
    var name: String { get }
    /// The kind (`http`, `apns`, `fcm`, ...).
    var kind: String { get }
    /// Whether the badge logic of §7 applies (`apns`, `wns` of type `badge`).
    var countsBadges: Bool { get }
    /// How many deliveries this provider may have in flight at once.
    var maxConcurrentDeliveries: Int { get }
    /// Whether a delivery whose retries ran out counts against the subscriber (webhooks: yes;
    /// push services: no, their outages are not the device's fault).
    var exhaustedRetriesCountAgainstSubscriber: Bool { get }

    /// Validates and normalizes a registration's token; `nil` when it is invalid.
    func normalizeToken(_ input: TokenInput) -> NormalizedToken?

    /// Whether subscribers name their own destination (webhooks, Web Push, WNS and MPNS channels)
    /// rather than all deliveries going to one service.
    ///
    /// The pipeline then limits deliveries in flight per host and opens a circuit breaker per host,
    /// so one slow or dead destination cannot hold the others back.
    var hasSubscriberDestinations: Bool { get }

    /// The host a stored token sends to, when ``hasSubscriberDestinations``.
    func destinationHost(of token: String) -> String?

    /// The addresses this provider may connect to for its subscribers, when ``hasSubscriberDestinations``;
    /// `nil` when it checks none. The intake refuses a token whose host is a forbidden literal address.
    var destinationPolicy: DestinationPolicy? { get }

    /// Reduces a subscriber to the facts this kind renders by.
    func variant(lang: String?, silent: Bool, badge: Int?, version: String?) -> MessageVariant

    /// Renders `notification` for one variant (called once per distinct variant per batch).
    func render(_ notification: PublishedEvent, for variant: MessageVariant) -> RenderResult<Message>

    /// Turns a payload the sender prepared into a message, unchanged but for what the kind
    /// must check (size, required headers). Kinds that cannot carry one answer `.fail`.
    func render(_ payload: PreparedPayload) -> RenderResult<Message>

    /// Sends one rendered message to one target.
    func send(_ message: Message, to target: DeliveryTarget) async -> DeliveryOutcome

    /// Sends many deliveries, at most ``maxConcurrentDeliveries`` at once, handing each outcome to
    /// `report` (with the delivery's index) as it arrives; returns once every one is reported.
    ///
    /// `report` may be called from several threads at once. The default runs
    /// ``send(_:to:)`` from a bounded group of tasks; kinds with a connection pool of
    /// their own send the whole batch from one task, which is the fan-out's hot path.
    func send(_ deliveries: [(message: Message, target: DeliveryTarget)], report: @escaping @Sendable (Int, DeliveryOutcome) -> Void) async

    /// Its connections now, if it keeps any it can count (`nil`: none to report).
    var connectionStatistics: ProviderConnectionStatistics? { get }

    /// Gets ready for a burst of sends without waiting: a kind with a connection pool opens a
    /// connection if it has none. A fan-out calls it when it starts, so that connecting overlaps
    /// the reading of the audience and the badge updates.
    func warmUp()

    /// Releases connections; called once at shutdown.
    func shutdown() async
    /// The service's broadcast channels, when the kind has them (APNs with token authentication);
    /// `nil` by default.
    var broadcastChannels: (any BroadcastChannels)? { get }
}

extension PushProvider {
    /// None, unless the kind has them.
    public var broadcastChannels: (any BroadcastChannels)? { nil }

    /// By default a kind renders by language and silence only.
    public func variant(lang: String?, silent: Bool, badge: Int?, version: String?) -> MessageVariant {
        MessageVariant(lang: lang, silent: silent, badge: countsBadges ? badge : nil)
    }

    /// Most kinds count no badges.
    public var countsBadges: Bool { false }

    /// A default that keeps a provider busy without flooding it.
    public var maxConcurrentDeliveries: Int { 256 }

    /// Push services' outages are not the subscriber's fault.
    public var exhaustedRetriesCountAgainstSubscriber: Bool { false }

    /// Most kinds send to one service.
    public var hasSubscriberDestinations: Bool { false }

    /// Most kinds send to one service.
    public func destinationHost(of token: String) -> String? { nil }

    /// Most kinds send to one configured service, which needs no policy.
    public var destinationPolicy: DestinationPolicy? { nil }

    /// Kinds that do not take prepared payloads refuse them as a message failure.
    public func render(_ payload: PreparedPayload) -> RenderResult<Message> {
        .fail(DeliveryOutcome(.messageFailure, reason: "PreparedPayloadUnsupported"))
    }

    /// Nothing to release by default.
    public func shutdown() async {}

    /// Kinds without connections of their own have nothing to prepare.
    public func warmUp() {}

    /// Kinds without a connection pool of their own report nothing.
    public var connectionStatistics: ProviderConnectionStatistics? { nil }

    /// Renders and sends in one step, for single deliveries (`/test`, retries).
    public func deliver(_ notification: PublishedEvent, variant: MessageVariant, to target: DeliveryTarget) async -> DeliveryOutcome? {
        switch render(notification, for: variant) {
        case .send(let message): await send(message, to: target)
        case .skip: nil
        case .fail(let outcome): outcome
        }
    }
}

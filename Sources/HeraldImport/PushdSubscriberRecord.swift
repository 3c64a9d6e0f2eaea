import HeraldCore
import HeraldStore

/// One subscriber as rs/pushd keeps it in Redis: the `subscriber:<id>` hash and the
/// `subscriber:<id>:evts` sorted set (event name → option bitmask).
struct PushdSubscriberRecord: Sendable {
    /// rs/pushd's `Event::OPTION_IGNORE_MESSAGE`.
    static let ignoreMessageBit = 1

    /// The id as listed in `subscribers`.
    var id: String
    /// The hash's fields; `nil` when the key is missing (an empty hash does not exist in Redis).
    var hash: [String: String]?
    /// Whether the key exists but is not a hash.
    var wrongType = false
    /// The `:evts` sorted set as event name and score, in Redis's order.
    var events: [(name: String, score: String)] = []
    /// Whether the `:evts` key exists but is not a sorted set (its subscriptions are lost, not the subscriber).
    var eventsWrongType = false

    /// What reading a record gives: a subscriber to write, or the reason it is skipped, and
    /// the subscriptions skipped on the way.
    struct Reading {
        var subscriber: ImportedSubscriber?
        var skip: PushdSkipReason?
        var skippedSubscriptions: [String] = []
    }

    /// Validates and maps the record (pushd-api.md §15): fields verbatim, APNs tokens
    /// lower-cased, options' bit 1 as `ignore_message`.
    func read(options: PushdImportOptions) -> Reading {
        if wrongType { return Reading(skip: .notAHash) }
        guard let hash else { return Reading(skip: .missingHash) }
        guard Self.isValidID(id) else { return Reading(skip: .invalidID) }
        guard let proto = hash["proto"], !proto.isEmpty else { return Reading(skip: .missingProto) }
        guard var token = hash["token"], !token.isEmpty else { return Reading(skip: .missingToken) }
        guard let created = hash["created"].flatMap(Self.seconds) else { return Reading(skip: .malformedCreated) }
        // rs/pushd writes both at creation; a hash without `updated` was never pinged.
        let updated: Int64
        if let text = hash["updated"] {
            guard let value = Self.seconds(text) else { return Reading(skip: .malformedUpdated) }
            updated = value
        } else {
            updated = created
        }
        if options.isAPNs(proto) { token = token.lowercased() }

        var subscriptions: [ImportedSubscription] = []
        var skipped: [String] = eventsWrongType ? ["subscriber:<id>:evts is not a sorted set"] : []
        for (name, score) in events {
            guard let event = EventName(name) else {
                skipped.append("invalid event name")
                continue
            }
            guard let bits = Self.options(score) else {
                skipped.append("non-numeric options")
                continue
            }
            subscriptions.append(ImportedSubscription(event: event, ignoreMessage: bits & Self.ignoreMessageBit != 0))
        }
        let fields = SubscriberFields(
            lang: hash["lang"], badge: hash["badge"], version: hash["version"], category: hash["category"],
            contentAvailable: hash["contentAvailable"])
        let subscriber = ImportedSubscriber(
            id: SubscriberID(rawValue: id), proto: proto, token: token, fields: fields, created: created, updated: updated,
            subscriptions: subscriptions)
        return Reading(subscriber: subscriber, skippedSubscriptions: skipped)
    }

    /// Ids Herald can serve at `/subscriber/:id`: rs/pushd's base64url alphabet, at most 64 characters.
    static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// Unix seconds written by rs/pushd (`Math.round(Date / 1000)`): a non-negative whole number.
    static func seconds(_ text: String) -> Int64? {
        guard let value = Int64(text), value >= 0 else { return nil }
        return value
    }

    /// A sorted-set score as rs/pushd's options bitmask: Redis gives scores as text, `1` or `1.0`-like.
    static func options(_ score: String) -> Int? {
        if let value = Int(score) { return value }
        guard let value = Double(score), value.isFinite, value == value.rounded(), abs(value) < 1e9 else { return nil }
        return Int(value)
    }
}

import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

/// Conversions between the model types and PostgreSQL rows and parameters.
enum PostgresCodec {
    /// The subscriber columns in the order ``subscriber(_:)`` reads them, for a statement where
    /// the subscribers table is `s` joined to its badge as `b`
    /// (`LEFT JOIN LATERAL (SELECT badge FROM badges WHERE badges.subscriber_id = s.id) AS b ON true`).
    static let subscriberColumns = """
        s.id, s.proto, s.token, s.lang, b.badge, s.version, s.category, s.content_available, s.created, s.updated, s.failures
        """

    /// The tuple ``subscriberColumns`` decodes to.
    typealias SubscriberTuple = (String, String, String, String?, String?, String?, String?, String?, Int64, Int64, Int32)

    /// A subscriber from the columns of ``subscriberColumns``.
    static func subscriber(_ t: SubscriberTuple) -> Subscriber {
        Subscriber(
            id: SubscriberID(rawValue: t.0), proto: t.1, token: t.2,
            fields: SubscriberFields(lang: t.3, badge: t.4, version: t.5, category: t.6, contentAvailable: t.7),
            created: t.8, updated: t.9, failures: Int(t.10))
    }

    /// Reads a row whose first columns are ``subscriberColumns``.
    static func subscriber(_ row: PostgresRow) throws -> Subscriber {
        var cells = row.makeIterator()
        return try subscriber(&cells)
    }

    /// Reads a row of ``subscriberColumns`` followed by a subscription's `ignore_message`.
    static func member(_ row: PostgresRow) throws -> AudienceMember {
        var cells = row.makeIterator()
        return try member(&cells)
    }

    /// Reads a row of ``member(_:)``'s columns followed by whether its badge was incremented.
    static func memberWithBadgeIncrement(_ row: PostgresRow) throws -> AudienceMember {
        var cells = row.makeIterator()
        var member = try member(&cells)
        member.badgeIncremented = try next(Bool.self, &cells)
        return member
    }

    private static func member(_ cells: inout PostgresRow.Iterator) throws -> AudienceMember {
        let subscriber = try subscriber(&cells)
        return AudienceMember(subscriber: subscriber, silent: try next(Bool.self, &cells))
    }

    /// Reads ``subscriberColumns`` from `cells`, a cell at a time. Audience pages decode 1,000 of
    /// these per page: decoding the row as one tuple went through the generic (variadic) form,
    /// which looked its metadata up at run time for every row (a quarter of the decoding).
    private static func subscriber(_ cells: inout PostgresRow.Iterator) throws -> Subscriber {
        let id = try next(String.self, &cells)
        let proto = try next(String.self, &cells)
        let token = try next(String.self, &cells)
        let fields = SubscriberFields(
            lang: try next(String?.self, &cells), badge: try next(String?.self, &cells), version: try next(String?.self, &cells),
            category: try next(String?.self, &cells), contentAvailable: try next(String?.self, &cells))
        return Subscriber(
            id: SubscriberID(rawValue: id), proto: proto, token: token, fields: fields,
            created: try next(Int64.self, &cells), updated: try next(Int64.self, &cells),
            failures: Int(try next(Int32.self, &cells)))
    }

    /// The next cell of a row, decoded as `type`.
    private static func next<T: PostgresDecodable>(_ type: T.Type, _ cells: inout PostgresRow.Iterator) throws -> T {
        guard let cell = cells.next() else { throw StoreError.corruptRow("a row has fewer columns than its statement selects") }
        return try cell.decode(T.self)
    }

    /// The stored form of a notification: its JSON text.
    static func encode(_ notification: HeraldCore.PublishedEvent) throws -> String {
        String(decoding: try JSONEncoder().encode(notification), as: UTF8.self)
    }

    /// The stored form of delivery content: an event in `notification`, a prepared payload in `payload`.
    static func encode(_ content: DeliveryContent) throws -> (notification: String?, payload: String?) {
        switch content {
        case .event(let event): (try encode(event), nil)
        case .prepared(let payload): (nil, String(decoding: try JSONEncoder().encode(payload), as: UTF8.self))
        }
    }

    /// Reads stored delivery content back from its two columns.
    static func content(notification: String?, payload: String?, table: String, id: Int64) throws -> DeliveryContent {
        if let notification {
            do {
                return .event(try JSONDecoder().decode(HeraldCore.PublishedEvent.self, from: Data(notification.utf8)))
            } catch {
                throw StoreError.corruptRow("\(table) \(id): undecodable notification: \(error)")
            }
        }
        guard let payload else { throw StoreError.corruptRow("\(table) \(id): neither a notification nor a payload") }
        do {
            return .prepared(try JSONDecoder().decode(PreparedPayload.self, from: Data(payload.utf8)))
        } catch {
            throw StoreError.corruptRow("\(table) \(id): undecodable payload: \(error)")
        }
    }

    /// Reads a stored event name back.
    static func eventName(_ raw: String, table: String) throws -> EventName {
        guard let name = EventName(raw) else { throw StoreError.corruptRow("\(table): invalid event name \(raw)") }
        return name
    }

    /// Whether a stored name is `broadcast` or `unicast:<id>`, whose rows follow §14.2 rather
    /// than "exists while subscribed".
    static func isSpecial(_ raw: String) -> Bool {
        raw == EventName.broadcast.rawValue || raw.hasPrefix("unicast:")
    }

    /// Rows for `jsonb_to_recordset($1::jsonb)`: the way to pass a batch whose columns may be
    /// null in one parameter (postgres-nio binds no arrays of optionals for `unnest`).
    static func jsonRecords<Row: Encodable>(_ rows: [Row]) throws -> String {
        String(decoding: try JSONEncoder().encode(rows), as: UTF8.self)
    }
}

extension PostgresRowSequence {
    /// Every row, decoded by `read`.
    func map<T>(_ read: (PostgresRow) throws -> T) async throws -> [T] {
        var result: [T] = []
        for try await row in self {
            result.append(try read(row))
        }
        return result
    }
}

import Foundation
import GRDB
import HeraldCore
import HeraldStore

/// Conversions between the model types and SQLite rows and parameters.
enum SQLiteCodec {
    /// The subscriber columns in the order ``subscriber(_:at:)`` reads them; `table` names the
    /// subscribers table (or its alias) in the statement.
    ///
    /// The badge lives in `badges` (migration v6), read by key for each subscriber.
    ///
    /// The two spellings statements use are built once: statements are looked up in GRDB's cache
    /// by their text, on every registration and read.
    static func subscriberColumns(_ table: String = "subscribers") -> String {
        switch table {
        case "subscribers": columnsOfSubscribers
        case "s": columnsOfS
        default: makeSubscriberColumns(table)
        }
    }

    private static let columnsOfSubscribers = makeSubscriberColumns("subscribers")
    private static let columnsOfS = makeSubscriberColumns("s")

    private static func makeSubscriberColumns(_ table: String) -> String {
        ["id", "proto", "token", "lang", "(SELECT badge FROM badges WHERE subscriber_id = \(table).id)", "version", "category",
         "content_available", "created", "updated", "failures"]
            .map { $0.hasPrefix("(") ? $0 : table + "." + $0 }
            .joined(separator: ", ")
    }

    /// How many columns ``subscriberColumns(_:)`` lists.
    static let subscriberColumnCount = 11

    /// Reads a subscriber selected with ``subscriberColumns(_:)`` starting at column `offset`.
    ///
    /// By index rather than by name: this runs for every member of every audience page.
    static func subscriber(_ row: Row, at offset: Int = 0) -> Subscriber {
        Subscriber(
            id: SubscriberID(rawValue: row[offset]),
            proto: row[offset + 1],
            token: row[offset + 2],
            fields: SubscriberFields(
                lang: row[offset + 3],
                badge: row[offset + 4],
                version: row[offset + 5],
                category: row[offset + 6],
                contentAvailable: row[offset + 7]
            ),
            created: row[offset + 8],
            updated: row[offset + 9],
            failures: row[offset + 10]
        )
    }

    /// A JSON array of strings, bound as one parameter and expanded in SQL with `json_each(?)`.
    ///
    /// Ids arriving in URLs are arbitrary text, so they are escaped (by `JSONWriter`, which
    /// escapes quotes, backslashes and control characters, all that JSON requires; it is several
    /// times cheaper than `JSONEncoder` on the thousand ids of a page).
    static func jsonArray(_ strings: some Sequence<String>) throws -> String {
        var writer = JSONWriter(capacity: 4096)
        writer.beginArray()
        for string in strings {
            writer.string(string)
        }
        writer.endArray()
        return writer.text
    }

    /// A JSON array of rows (arrays of strings, integers and nulls), read in SQL with
    /// `json_extract(value, '$[n]')`.
    static func jsonRows(_ rows: [[JSONScalar]]) throws -> String {
        var writer = JSONWriter(capacity: 64 * rows.count + 2)
        writer.beginArray()
        for row in rows {
            writer.beginArray()
            for cell in row {
                switch cell {
                case .text(let value): writer.string(value)
                case .integer(let value): writer.number(value)
                case .null: writer.null()
                }
            }
            writer.endArray()
        }
        writer.endArray()
        return writer.text
    }

    /// One cell of ``jsonRows(_:)``.
    enum JSONScalar: Encodable {
        case text(String)
        case integer(Int64)
        case null

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .null: try container.encodeNil()
            }
        }

        static func optional(_ value: String?) -> JSONScalar { value.map { .text($0) } ?? .null }
        static func optional(_ value: Int?) -> JSONScalar { value.map { .integer(Int64($0)) } ?? .null }
    }

    /// The stored form of a notification.
    static func encode(_ notification: HeraldCore.PublishedEvent) throws -> Data {
        try JSONEncoder().encode(notification)
    }

    /// Reads a stored notification back.
    static func notification(_ data: Data, table: String, id: Int64) throws -> HeraldCore.PublishedEvent {
        do {
            return try JSONDecoder().decode(HeraldCore.PublishedEvent.self, from: data)
        } catch {
            throw StoreError.corruptRow("\(table) \(id): undecodable notification: \(error)")
        }
    }

    /// The stored form of delivery content: an event in `notification`, a prepared payload in `payload`.
    static func encode(_ content: DeliveryContent) throws -> (notification: Data?, payload: Data?) {
        switch content {
        case .event(let event): (try encode(event), nil)
        case .prepared(let payload): (nil, try JSONEncoder().encode(payload))
        }
    }

    /// Reads stored delivery content back from its two columns.
    static func content(notification: Data?, payload: Data?, table: String, id: Int64) throws -> DeliveryContent {
        if let notification { return .event(try self.notification(notification, table: table, id: id)) }
        guard let payload else { throw StoreError.corruptRow("\(table) \(id): neither a notification nor a payload") }
        do {
            return .prepared(try JSONDecoder().decode(PreparedPayload.self, from: payload))
        } catch {
            throw StoreError.corruptRow("\(table) \(id): undecodable payload: \(error)")
        }
    }

    /// Reads a stored event name back.
    static func eventName(_ raw: String, table: String) throws -> EventName {
        guard let name = EventName(raw) else {
            throw StoreError.corruptRow("\(table): invalid event name \(raw)")
        }
        return name
    }

    /// Whether a stored name is `broadcast` or `unicast:<id>`, whose rows follow §14.2
    /// rather than "exists while subscribed".
    static func isSpecial(_ raw: String) -> Bool {
        raw == EventName.broadcast.rawValue || raw.hasPrefix("unicast:")
    }
}

import PostgresNIO

/// One of an event page's statements: its join, whether it increments the counted badges, and
/// whether it stops at a part's end.
protocol EventPageForm: Sendable {
    /// The statement's name on a connection, unique among the forms.
    static var name: String { get }
    /// The statement.
    static var sql: String { get }
    /// Its parameters' types.
    static var bindingDataTypes: [PostgresDataType] { get }
}

extension PostgresStore {
    /// The form of an event's page read with `join`; `bounded` (a part's end as `$5`) applies to
    /// badge-incrementing pages only, as a plain page is cut after it is read.
    static func eventPageForm(_ join: AudiencePageJoin, incrementingBadges: Bool, bounded: Bool) -> any EventPageForm.Type {
        switch (join, incrementingBadges, bounded) {
        case (.keyLookups, false, _): EventPageByKeyLookups.self
        case (.rangeMerge, false, _): EventPageByRangeMerge.self
        case (.keyLookups, true, false): BadgePageByKeyLookups.self
        case (.keyLookups, true, true): BoundedBadgePageByKeyLookups.self
        case (.rangeMerge, true, false): BadgePageByRangeMerge.self
        case (.rangeMerge, true, true): BoundedBadgePageByRangeMerge.self
        }
    }
}

/// ``PostgresStore/eventAudiencePage(_:)`` by key lookups.
enum EventPageByKeyLookups: EventPageForm {
    static let name = "herald_event_page_lookups"
    static let sql = PostgresStore.eventAudiencePage(.keyLookups)
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .int8]
}

/// ``PostgresStore/eventAudiencePage(_:)`` by a merge of ranges.
enum EventPageByRangeMerge: EventPageForm {
    static let name = "herald_event_page_merge"
    static let sql = PostgresStore.eventAudiencePage(.rangeMerge)
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .int8]
}

/// ``PostgresStore/eventAudiencePageIncrementingBadges(_:bounded:)`` by key lookups, open.
enum BadgePageByKeyLookups: EventPageForm {
    static let name = "herald_badge_page_lookups"
    static let sql = PostgresStore.eventAudiencePageIncrementingBadges(.keyLookups, bounded: false)
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .int8, .textArray]
}

/// ``PostgresStore/eventAudiencePageIncrementingBadges(_:bounded:)`` by key lookups, up to a part's end.
enum BoundedBadgePageByKeyLookups: EventPageForm {
    static let name = "herald_badge_page_lookups_bounded"
    static let sql = PostgresStore.eventAudiencePageIncrementingBadges(.keyLookups, bounded: true)
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .int8, .textArray, .text]
}

/// ``PostgresStore/eventAudiencePageIncrementingBadges(_:bounded:)`` by a merge of ranges, open.
enum BadgePageByRangeMerge: EventPageForm {
    static let name = "herald_badge_page_merge"
    static let sql = PostgresStore.eventAudiencePageIncrementingBadges(.rangeMerge, bounded: false)
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .int8, .textArray]
}

/// ``PostgresStore/eventAudiencePageIncrementingBadges(_:bounded:)`` by a merge of ranges, up to a part's end.
enum BoundedBadgePageByRangeMerge: EventPageForm {
    static let name = "herald_badge_page_merge_bounded"
    static let sql = PostgresStore.eventAudiencePageIncrementingBadges(.rangeMerge, bounded: true)
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .int8, .textArray, .text]
}

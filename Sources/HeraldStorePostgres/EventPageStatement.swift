import PostgresNIO

/// An event's audience page as a named prepared statement, run under a generic plan
/// (``PostgresStore/eventPagePlan(_:incrementingBadges:)``).
///
/// A page's plan settings leave the planner one plan whatever the page's values, so the plan is
/// made once per connection instead of for every page: about 0.8 of a 1,000-member badge page's
/// 11 ms under pgbench. `Form` is the page's SQL, one statement name each.
struct EventPageStatement<Form: EventPageForm>: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static var name: String { Form.name }
    static var sql: String { Form.sql }
    static var bindingDataTypes: [PostgresDataType] { Form.bindingDataTypes }

    /// The page's values, in the order of ``EventPageForm/bindingDataTypes``.
    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings {
        bindings
    }

    func decodeRow(_ row: PostgresRow) -> PostgresRow {
        row
    }
}

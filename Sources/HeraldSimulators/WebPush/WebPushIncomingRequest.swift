/// A push request as the simulator's validation sees it, apart from the HTTP server that read it.
struct WebPushIncomingRequest: Sendable {
    /// The subscription id from `/push/<id>`.
    var subscriptionID: String
    /// Every header, names lower-cased, in the order received (repeated headers kept).
    var headers: [(name: String, value: String)]
    /// The body, or `nil` when it exceeded what the server reads at all.
    var body: [UInt8]?

    /// Every value of the header `name` (lower-case), a comma-separated line counting as several values.
    func values(_ name: String) -> [String] {
        headers.filter { $0.name == name }.flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The first value of the header `name` (lower-case), as sent.
    func first(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

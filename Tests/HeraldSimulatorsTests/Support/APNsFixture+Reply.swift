import Foundation
import NIOHTTP1

extension APNsFixture {
    /// What the simulator answered.
    struct Reply: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: String

        var apnsID: String? { self.headers.first(name: "apns-id") }

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(self.body.utf8))) as? [String: Any] ?? [:]
        }

        var reason: String? { self.json["reason"] as? String }
        var timestamp: Int64? { (self.json["timestamp"] as? NSNumber)?.int64Value }
    }
}

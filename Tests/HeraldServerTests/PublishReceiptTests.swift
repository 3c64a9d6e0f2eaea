import Foundation
import HeraldTestSupport
import Testing

/// Every accepted publish has an id (issue 19's receipts): `Herald-Publish-Id` on pushd's `204`,
/// and `202 {"id":...}` for a client that accepts JSON.
@Suite struct PublishReceiptTests {
    static func isPublishID(_ text: String?) -> Bool {
        guard let text, text.utf8.count == 32 else { return false }
        return text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    @Test func pushdClientsKeepTheir204AndGetTheIdInAHeader() async throws {
        try await withHerald { herald in
            let first = try await herald.request(.POST, "/event/scores", form: "msg=goal")
            #expect(first.status == 204)
            #expect(first.body.isEmpty)
            #expect(Self.isPublishID(first.header("Herald-Publish-Id")), "\(first.header("Herald-Publish-Id") ?? "none")")
            let second = try await herald.request(.POST, "/event/scores", form: "msg=again", headers: [("Accept", "*/*")])
            #expect(second.status == 204)
            #expect(Self.isPublishID(second.header("Herald-Publish-Id")))
            #expect(first.header("Herald-Publish-Id") != second.header("Herald-Publish-Id"), "one id per publish")
        }
    }

    @Test func aClientThatAcceptsJSONGets202WithTheId() async throws {
        try await withHerald { herald in
            let response = try await herald.request(
                .POST, "/event/scores", json: #"{"msg":"goal"}"#, headers: [("Accept", "text/html, application/json;q=0.9")])
            #expect(response.status == 202)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
            let id = body["id"] as? String
            #expect(Self.isPublishID(id))
            #expect(response.header("Herald-Publish-Id") == id)
            // A refused publish has no id.
            let refused = try await herald.request(.POST, "/event/scores", json: "{}", headers: [("Accept", "application/json")])
            #expect(refused.status == 400)
            #expect(refused.header("Herald-Publish-Id") == nil)
        }
    }
}

import Foundation
import HeraldSimulators
import Testing

/// Each step of providers.md §1.9, driven over real TLS + HTTP/2 with AsyncHTTPClient.
@Suite(.timeLimit(.minutes(1)))
struct APNsValidationTests {
    private func expectError(
        _ reply: APNsFixture.Reply, _ status: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, sourceLocation: sourceLocation)
        #expect(reply.reason == reason, "body: \(reply.body)", sourceLocation: sourceLocation)
        #expect(reply.headers.first(name: "content-type") == "application/json", sourceLocation: sourceLocation)
        #expect(reply.apnsID.map(APNsValidationTests.isLowercaseUUID) == true, sourceLocation: sourceLocation)
    }

    static func isLowercaseUUID(_ text: String) -> Bool {
        UUID(uuidString: text) != nil && text == text.lowercased()
    }

    @Test func validTokenPushIsAcceptedAndEchoesApnsID() async throws {
        try await APNsFixture.with { fixture in
            let apnsID = "eabeae54-14a8-11e5-b60b-1697f925ec7b"
            let reply = try await fixture.push(headers: fixture.standardHeaders + [("apns-id", apnsID)])
            #expect(reply.status == 200)
            #expect(reply.apnsID == apnsID)
            #expect(reply.body.isEmpty)
            #expect(reply.headers.first(name: "apns-unique-id") == nil)
            #expect(fixture.simulator.acceptedCount == 1)
            #expect(fixture.simulator.acceptedTokens() == [APNsFixture.deviceToken])
        }
    }

    @Test func missingApnsIDGetsAGeneratedLowercaseUUID() async throws {
        try await APNsFixture.with { fixture in
            let reply = try await fixture.push()
            #expect(reply.status == 200)
            #expect(reply.apnsID.map(Self.isLowercaseUUID) == true)
        }
    }

    @Test func sandboxAddsApnsUniqueID() async throws {
        try await APNsFixture.with(configure: { $0.sandbox = true }) { fixture in
            let reply = try await fixture.push()
            #expect(reply.status == 200)
            #expect(reply.headers.first(name: "apns-unique-id").map(Self.isLowercaseUUID) == true)
        }
    }

    @Test func step1BadMessageID() async throws {
        try await APNsFixture.with { fixture in
            let reply = try await fixture.push(headers: fixture.headers(setting: "apns-id", to: "not-a-uuid"))
            self.expectError(reply, 400, "BadMessageId")
            #expect(reply.apnsID != "not-a-uuid")
        }
    }

    @Test func step2MethodNotAllowed() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(try await fixture.push(method: .GET), 405, "MethodNotAllowed")
        }
    }

    @Test func step3DuplicateHeaders() async throws {
        try await APNsFixture.with { fixture in
            let reply = try await fixture.push(
                headers: fixture.standardHeaders + [("apns-topic", APNsFixture.bundleID)])
            self.expectError(reply, 400, "DuplicateHeaders")
        }
    }

    @Test func step4MissingTopic() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(
                try await fixture.push(headers: fixture.headers(setting: "apns-topic", to: nil)), 400, "MissingTopic")
        }
    }

    @Test func step5BadCollapseID() async throws {
        try await APNsFixture.with { fixture in
            let tooLong = try await fixture.push(
                headers: fixture.headers(setting: "apns-collapse-id", to: String(repeating: "c", count: 65)))
            self.expectError(tooLong, 400, "BadCollapseId")
            let longest = try await fixture.push(
                headers: fixture.headers(setting: "apns-collapse-id", to: String(repeating: "c", count: 64)))
            #expect(longest.status == 200)
        }
    }

    @Test func step6BadPriority() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(
                try await fixture.push(headers: fixture.headers(setting: "apns-priority", to: "7")), 400, "BadPriority")
            #expect(try await fixture.push(headers: fixture.headers(setting: "apns-priority", to: "5")).status == 200)
        }
    }

    @Test func step7InvalidPushType() async throws {
        try await APNsFixture.with { fixture in
            let reply = try await fixture.push(headers: fixture.headers(setting: "apns-push-type", to: "bogus"))
            self.expectError(reply, 400, "InvalidPushType")
        }
    }

    @Test func step7BackgroundWithPriority10() async throws {
        try await APNsFixture.with { fixture in
            let background = fixture.headers(setting: "apns-push-type", to: "background")
            let body = #"{"aps":{"content-available":1}}"#
            self.expectError(
                try await fixture.push(headers: background + [("apns-priority", "10")], body: body), 400, "BadPriority")
            // Absent means 10 as well.
            self.expectError(try await fixture.push(headers: background, body: body), 400, "BadPriority")
            #expect(try await fixture.push(headers: background + [("apns-priority", "5")], body: body).status == 200)
        }
    }

    @Test func step7BackgroundReasonIsConfigurable() async throws {
        try await APNsFixture.with(configure: { $0.backgroundPriority10Reason = "InvalidPushType" }) { fixture in
            let headers = fixture.headers(setting: "apns-push-type", to: "background") + [("apns-priority", "10")]
            self.expectError(try await fixture.push(headers: headers), 400, "InvalidPushType")
        }
    }

    @Test func step8BadExpirationDate() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(
                try await fixture.push(headers: fixture.headers(setting: "apns-expiration", to: "tomorrow")), 400,
                "BadExpirationDate")
            #expect(try await fixture.push(headers: fixture.headers(setting: "apns-expiration", to: "0")).status == 200)
        }
    }

    @Test func step9MissingDeviceTokenAndBadPath() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(try await fixture.push(path: "/3/device/"), 400, "MissingDeviceToken")
            self.expectError(try await fixture.push(path: "/3/devices/abcd"), 404, "BadPath")
            self.expectError(try await fixture.push(path: "/4/broadcasts/apps/com.example.app"), 404, "BadPath")
        }
    }

    @Test(arguments: ["xyz1", "abc", "zz"])
    func step9BadDeviceToken(token: String) async throws {
        try await APNsFixture.with { fixture in
            self.expectError(try await fixture.push(token: token), 400, "BadDeviceToken")
        }
    }

    @Test func step9TokenMarkedBad() async throws {
        try await APNsFixture.with { fixture in
            let token = String(repeating: "0f", count: 40)  // longer than 32 bytes: token lengths are not fixed
            #expect(try await fixture.push(token: token).status == 200)
            fixture.simulator.markBadToken(token.uppercased())
            self.expectError(try await fixture.push(token: token), 400, "BadDeviceToken")
        }
    }

    @Test func step10UnregisteredWithTimestamp() async throws {
        try await APNsFixture.with { fixture in
            fixture.simulator.unregister(token: APNsFixture.deviceToken, at: 1_454_402_113_000)
            let reply = try await fixture.push()
            self.expectError(reply, 410, "Unregistered")
            #expect(reply.timestamp == 1_454_402_113_000)
            fixture.simulator.restore(token: APNsFixture.deviceToken)
            #expect(try await fixture.push().status == 200)
        }
    }

    @Test func step11DeviceTokenNotForTopic() async throws {
        try await APNsFixture.with(configure: { $0.topics = [APNsFixture.bundleID, "com.example.other"] }) { fixture in
            fixture.simulator.register(token: APNsFixture.deviceToken, forTopics: ["com.example.other"])
            self.expectError(try await fixture.push(), 400, "DeviceTokenNotForTopic")
            fixture.simulator.register(token: APNsFixture.deviceToken, forTopics: [APNsFixture.bundleID])
            #expect(try await fixture.push().status == 200)
        }
    }

    @Test func step12TopicOfAnotherBundleOrPushType() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(
                try await fixture.push(headers: fixture.headers(setting: "apns-topic", to: "com.example.other")), 403,
                "InvalidProviderToken")
            // A VoIP push must go to "<bundle>.voip".
            let voip = fixture.headers(setting: "apns-push-type", to: "voip")
            self.expectError(try await fixture.push(headers: voip), 400, "BadTopic")
            let voipTopic = voip.filter { $0.0 != "apns-topic" } + [("apns-topic", "com.example.app.voip")]
            #expect(try await fixture.push(headers: voipTopic).status == 200)
        }
    }

    @Test func step13PayloadEmpty() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(try await fixture.push(body: ""), 400, "PayloadEmpty")
        }
    }

    /// A JSON object of exactly `size` bytes.
    static func payload(ofSize size: Int) -> String {
        let frame = #"{"aps":{"alert":"x"},"pad":""}"#
        return #"{"aps":{"alert":"x"},"pad":""# + String(repeating: "p", count: size - frame.utf8.count) + #""}"#
    }

    @Test func step13PayloadTooLarge() async throws {
        try await APNsFixture.with { fixture in
            #expect(Self.payload(ofSize: 4096).utf8.count == 4096)
            #expect(try await fixture.push(body: Self.payload(ofSize: 4096)).status == 200)
            self.expectError(try await fixture.push(body: Self.payload(ofSize: 4097)), 413, "PayloadTooLarge")

            let voip =
                fixture.standardHeaders.filter { $0.0 != "apns-topic" && $0.0 != "apns-push-type" }
                + [("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip")]
            #expect(try await fixture.push(headers: voip, body: Self.payload(ofSize: 5120)).status == 200)
            self.expectError(
                try await fixture.push(headers: voip, body: Self.payload(ofSize: 5121)), 413, "PayloadTooLarge")
        }
    }

    @Test func step13BodyThatIsNotAJSONObject() async throws {
        try await APNsFixture.with { fixture in
            self.expectError(try await fixture.push(body: #"{"aps":"#), 400, "BadPayload")
            self.expectError(try await fixture.push(body: "[1,2]"), 400, "BadPayload")
        }
    }

    @Test func stepsAreCheckedInOrder() async throws {
        try await APNsFixture.with { fixture in
            // 1 before 2.
            let both = try await fixture.push(method: .GET, headers: fixture.headers(setting: "apns-id", to: "nope"))
            self.expectError(both, 400, "BadMessageId")
            // 4 before 9.
            self.expectError(
                try await fixture.push(path: "/nope", headers: fixture.headers(setting: "apns-topic", to: nil)), 400,
                "MissingTopic")
            // 10 before 12: the device state is consulted before the credentials.
            fixture.simulator.unregister(token: APNsFixture.deviceToken, at: 1)
            self.expectError(
                try await fixture.push(headers: fixture.headers(setting: "authorization", to: nil)), 410, "Unregistered"
            )
            // 12 before 13.
            self.expectError(
                try await fixture.push(
                    token: "abcd", headers: fixture.headers(setting: "authorization", to: nil), body: ""), 403,
                "MissingProviderToken")
        }
    }

    @Test func acceptedPayloadsAreRecordedWhenAsked() async throws {
        try await APNsFixture.with(configure: { $0.recordPayloads = true }) { fixture in
            let reply = try await fixture.push(headers: fixture.standardHeaders + [("apns-collapse-id", "c1")])
            #expect(reply.status == 200)
            _ = try await fixture.push(token: "zz")
            let accepted = fixture.simulator.accepted()
            try #require(accepted.count == 1)
            #expect(accepted[0].token == APNsFixture.deviceToken)
            #expect(accepted[0].body == APNsFixture.alertBody)
            #expect(accepted[0].header("apns-collapse-id") == "c1")
            #expect(accepted[0].header(":path") == "/3/device/\(APNsFixture.deviceToken)")
            #expect(accepted[0].apnsID == reply.apnsID)
            let statistics = fixture.simulator.statistics()
            #expect(statistics.requests == 2)
            #expect(statistics.rejections == ["BadDeviceToken": 1])
        }
    }

    @Test func payloadsAreNotRecordedByDefault() async throws {
        try await APNsFixture.with { fixture in
            let reply = try await fixture.push()
            #expect(reply.status == 200)
            #expect(fixture.simulator.accepted().isEmpty)
            #expect(fixture.simulator.acceptedTokens().count == 1)
        }
    }
}

import Foundation
import HeraldSimulators
import NIOHTTP1
import Testing

/// The iOS 18 broadcast API (Apple's "Sending channel management requests to APNs" and "Sending broadcast push
/// notification requests to APNs"), served by the APNs simulator on its one listener, over real TLS + HTTP/2.
@Suite(.timeLimit(.minutes(1)))
struct APNsBroadcastSimulatorTests {
    static let channelsPath = "/1/apps/\(APNsFixture.bundleID)/channels"
    static let allChannelsPath = "/1/apps/\(APNsFixture.bundleID)/all-channels"
    static let broadcastPath = "/4/broadcasts/apps/\(APNsFixture.bundleID)"
    static let liveActivityBody =
        #"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"score":"1-0"}}}"#
    /// Apple's example channel id: well-formed base64 that the simulator never hands out.
    static let strangerChannelID = "dHN0LXNyY2gtY2hubA=="

    /// The body of `GET /1/apps/<bundle id>/channels`.
    struct ChannelConfiguration: Decodable {
        let messageStoragePolicy: Int
        let pushType: String

        enum CodingKeys: String, CodingKey {
            case messageStoragePolicy = "message-storage-policy"
            case pushType = "push-type"
        }
    }

    /// The body of `GET /1/apps/<bundle id>/all-channels`.
    struct ChannelList: Decodable {
        let channels: [String]
    }

    /// Runs `body` against a simulator serving the broadcast API and recording payloads, configured further by
    /// `configure`.
    static func with(
        configure: (inout APNsSimulator.Configuration) -> Void = { _ in },
        clientCertificateTopic: String? = nil,
        _ body: (APNsFixture) async throws -> Void
    ) async throws {
        try await APNsFixture.with(
            configure: { configuration in
                configuration.broadcast = true
                configuration.recordPayloads = true
                configure(&configuration)
            },
            clientCertificateTopic: clientCertificateTopic,
            body
        )
    }

    private func expectError(
        _ reply: APNsFixture.Reply, _ status: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, sourceLocation: sourceLocation)
        #expect(reply.reason == reason, "body: \(reply.body)", sourceLocation: sourceLocation)
        #expect(reply.headers.first(name: "content-type") == "application/json", sourceLocation: sourceLocation)
        #expect(
            reply.headers.first(name: "apns-request-id").map(APNsValidationTests.isLowercaseUUID) == true,
            sourceLocation: sourceLocation)
        #expect(reply.apnsID == nil, sourceLocation: sourceLocation)
    }

    private func authorization(_ fixture: APNsFixture) -> [(String, String)] {
        [("authorization", "bearer \(fixture.providerToken)")]
    }

    private func createChannel(
        _ fixture: APNsFixture,
        policy: Int = 1,
        body: String? = nil,
        headers: [(String, String)]? = nil
    ) async throws -> APNsFixture.Reply {
        try await fixture.push(
            path: Self.channelsPath,
            method: .POST,
            headers: headers ?? self.authorization(fixture),
            body: body ?? #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#
        )
    }

    /// Creates a channel and returns its id, failing the test when the simulator refuses.
    private func channel(_ fixture: APNsFixture, policy: Int = 1) async throws -> String {
        let reply = try await self.createChannel(fixture, policy: policy)
        try #require(reply.status == 201, "body: \(reply.body)")
        return try #require(reply.headers.first(name: "apns-channel-id"))
    }

    private func channelRequest(
        _ fixture: APNsFixture, method: HTTPMethod, channelID: String?, path: String = Self.channelsPath
    ) async throws -> APNsFixture.Reply {
        var headers = self.authorization(fixture)
        if let channelID {
            headers.append(("apns-channel-id", channelID))
        }
        return try await fixture.push(path: path, method: method, headers: headers, body: nil)
    }

    private func broadcastHeaders(
        _ fixture: APNsFixture, channelID: String, expiration: String = "0"
    ) -> [(String, String)] {
        self.authorization(fixture) + [
            ("apns-channel-id", channelID),
            ("apns-push-type", "liveactivity"),
            ("apns-priority", "10"),
            ("apns-expiration", expiration),
        ]
    }

    /// `headers` with `name` set to `value` (or removed when `nil`).
    private func setting(_ name: String, to value: String?, in headers: [(String, String)]) -> [(String, String)] {
        var result = headers.filter { $0.0 != name }
        if let value {
            result.append((name, value))
        }
        return result
    }

    private func broadcast(
        _ fixture: APNsFixture, headers: [(String, String)], body: String? = Self.liveActivityBody,
        path: String = Self.broadcastPath
    ) async throws -> APNsFixture.Reply {
        try await fixture.push(path: path, method: .POST, headers: headers, body: body)
    }

    // MARK: The whole lifecycle

    @Test func createReadListBroadcastDeleteAndBroadcastAgain() async throws {
        try await Self.with { fixture in
            // Create.
            let requestID = "2288cf3f-70d8-46a6-97d7-dd5d00867127"
            let created = try await self.createChannel(
                fixture, headers: self.authorization(fixture) + [("apns-request-id", requestID)])
            #expect(created.status == 201)
            #expect(created.body.isEmpty)
            #expect(created.headers.first(name: "apns-request-id") == requestID)
            #expect(created.apnsID == nil)
            let channelID = try #require(created.headers.first(name: "apns-channel-id"))
            #expect(Data(base64Encoded: channelID) != nil)
            #expect(
                fixture.simulator.channels(for: APNsFixture.bundleID).map(\.id) == [channelID])
            #expect(
                fixture.simulator.channels(for: APNsFixture.bundleID).first?.messageStoragePolicy
                    == .mostRecentMessageStored)

            // Read.
            let read = try await self.channelRequest(fixture, method: .GET, channelID: channelID)
            #expect(read.status == 200)
            #expect(read.headers.first(name: "apns-request-id").map(APNsValidationTests.isLowercaseUUID) == true)
            let configuration = try JSONDecoder().decode(ChannelConfiguration.self, from: Data(read.body.utf8))
            #expect(configuration.messageStoragePolicy == 1)
            #expect(configuration.pushType == "LiveActivity")

            // List.
            let second = try await self.channel(fixture, policy: 0)
            let listed = try await self.channelRequest(
                fixture, method: .GET, channelID: nil, path: Self.allChannelsPath)
            #expect(listed.status == 200)
            #expect(try JSONDecoder().decode(ChannelList.self, from: Data(listed.body.utf8)).channels == [
                channelID, second,
            ])

            // Broadcast: accepted and recorded.
            let broadcastRequestID = "eabeae54-14a8-11e5-b60b-1697f925ec7b"
            let sent = try await self.broadcast(
                fixture,
                headers: self.broadcastHeaders(fixture, channelID: channelID) + [
                    ("apns-request-id", broadcastRequestID)
                ])
            #expect(sent.status == 200)
            #expect(sent.body.isEmpty)
            #expect(sent.headers.first(name: "apns-request-id") == broadcastRequestID)
            #expect(sent.apnsID == nil)
            let uniqueID = try #require(sent.headers.first(name: "apns-unique-id"))
            #expect(APNsValidationTests.isLowercaseUUID(uniqueID))
            let accepted = fixture.simulator.acceptedBroadcasts()
            try #require(accepted.count == 1)
            #expect(accepted[0].bundleID == APNsFixture.bundleID)
            #expect(accepted[0].channelID == channelID)
            #expect(accepted[0].body == Self.liveActivityBody)
            #expect(accepted[0].header("apns-push-type") == "liveactivity")
            #expect(accepted[0].header(":path") == Self.broadcastPath)
            #expect(accepted[0].requestID == broadcastRequestID)
            #expect(accepted[0].uniqueID == uniqueID)
            #expect(fixture.simulator.acceptedTokens().isEmpty)
            #expect(fixture.simulator.accepted().isEmpty)

            // Delete.
            let deleted = try await self.channelRequest(fixture, method: .DELETE, channelID: channelID)
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            #expect(deleted.headers.first(name: "apns-request-id") != nil)
            #expect(fixture.simulator.channels(for: APNsFixture.bundleID).map(\.id) == [second])
            let relisted = try await self.channelRequest(
                fixture, method: .GET, channelID: nil, path: Self.allChannelsPath)
            #expect(try JSONDecoder().decode(ChannelList.self, from: Data(relisted.body.utf8)).channels == [second])

            // The deleted channel is gone for every operation.
            self.expectError(
                try await self.channelRequest(fixture, method: .GET, channelID: channelID), 400, "ChannelNotRegistered")
            self.expectError(
                try await self.channelRequest(fixture, method: .DELETE, channelID: channelID), 400,
                "ChannelNotRegistered")
            self.expectError(
                try await self.broadcast(fixture, headers: self.broadcastHeaders(fixture, channelID: channelID)), 400,
                "ChannelNotRegistered")
            #expect(fixture.simulator.acceptedBroadcasts().count == 1)

            let statistics = fixture.simulator.statistics()
            #expect(statistics.channelsCreated == 2)
            #expect(statistics.channelsDeleted == 1)
            #expect(statistics.broadcasts == 1)
            #expect(statistics.accepted == 1)
            #expect(statistics.rejections == ["ChannelNotRegistered": 3])
        }
    }

    @Test func listingWithoutChannelsIsEmpty() async throws {
        try await Self.with { fixture in
            let listed = try await self.channelRequest(
                fixture, method: .GET, channelID: nil, path: Self.allChannelsPath)
            #expect(listed.status == 200)
            #expect(listed.body == #"{"channels":[]}"#)
        }
    }

    // MARK: Channel creation

    @Test func creationAcceptsBothPoliciesAndTheLowercasePushType() async throws {
        try await Self.with { fixture in
            #expect(try await self.createChannel(fixture, policy: 0).status == 201)
            #expect(try await self.createChannel(fixture, policy: 1).status == 201)
            let lowercase = try await self.createChannel(
                fixture, body: #"{"push-type":"liveactivity","message-storage-policy":0}"#)
            #expect(lowercase.status == 201)
            #expect(
                fixture.simulator.channels(for: APNsFixture.bundleID).map(\.messageStoragePolicy) == [
                    .noMessageStored, .mostRecentMessageStored, .noMessageStored,
                ])
        }
    }

    @Test func creationRefusesBadBodies() async throws {
        try await Self.with { fixture in
            self.expectError(
                try await self.createChannel(fixture, body: #"{"message-storage-policy":1,"push-type":"alert"}"#), 400,
                "InvalidPushType")
            self.expectError(
                try await self.createChannel(fixture, body: #"{"message-storage-policy":1}"#), 400, "MissingPushType")
            self.expectError(
                try await self.createChannel(fixture, body: #"{"message-storage-policy":1,"push-type":7}"#), 400,
                "InvalidPushType")
            self.expectError(try await self.createChannel(fixture, policy: 2), 400, "BadRequestParams")
            let stringPolicy = #"{"message-storage-policy":"1","push-type":"LiveActivity"}"#
            self.expectError(try await self.createChannel(fixture, body: stringPolicy), 400, "BadRequestParams")
            self.expectError(
                try await self.createChannel(fixture, body: #"{"push-type":"LiveActivity"}"#), 400, "BadRequestParams")
            self.expectError(
                try await self.createChannel(
                    fixture, body: #"{"message-storage-policy":1,"push-type":"LiveActivity","name":"final"}"#),
                400, "BadRequestParams")
            self.expectError(
                try await self.createChannel(fixture, body: #"{"message-storage-"#), 400, "BadRequestPayload")
            self.expectError(try await self.createChannel(fixture, body: "[1]"), 400, "BadRequestPayload")
            self.expectError(try await self.createChannel(fixture, body: ""), 400, "BadRequestPayload")
            #expect(fixture.simulator.channels(for: APNsFixture.bundleID).isEmpty)
            #expect(fixture.simulator.statistics().channelsCreated == 0)
        }
    }

    @Test func invalidPolicyReasonIsConfigurable() async throws {
        try await Self.with(configure: { $0.invalidMessageStoragePolicyReason = "BadRequestPayload" }) { fixture in
            self.expectError(try await self.createChannel(fixture, policy: 3), 400, "BadRequestPayload")
        }
    }

    @Test func channelLimitIsCannotCreateChannelConfig() async throws {
        try await Self.with(configure: { $0.maxChannelsPerBundle = 2 }) { fixture in
            let first = try await self.channel(fixture)
            _ = try await self.channel(fixture)
            self.expectError(try await self.createChannel(fixture), 400, "CannotCreateChannelConfig")
            #expect(try await self.channelRequest(fixture, method: .DELETE, channelID: first).status == 204)
            #expect(try await self.createChannel(fixture).status == 201)
        }
    }

    // MARK: Broadcast sends

    @Test func broadcastRefusesBadHeaders() async throws {
        try await Self.with { fixture in
            let channelID = try await self.channel(fixture)
            let headers = self.broadcastHeaders(fixture, channelID: channelID)
            self.expectError(
                try await self.broadcast(fixture, headers: self.setting("apns-push-type", to: nil, in: headers)), 400,
                "MissingPushType")
            self.expectError(
                try await self.broadcast(fixture, headers: self.setting("apns-push-type", to: "alert", in: headers)),
                400, "InvalidPushType")
            self.expectError(
                try await self.broadcast(fixture, headers: self.setting("apns-priority", to: "7", in: headers)), 400,
                "BadPriority")
            self.expectError(
                try await self.broadcast(fixture, headers: self.setting("apns-priority", to: nil, in: headers)), 400,
                "BadPriority")
            self.expectError(
                try await self.broadcast(fixture, headers: self.setting("apns-expiration", to: "soon", in: headers)),
                400, "BadExpirationDate")
            self.expectError(
                try await self.broadcast(fixture, headers: self.setting("apns-channel-id", to: nil, in: headers)), 400,
                "MissingChannelId")
            self.expectError(
                try await self.broadcast(
                    fixture, headers: self.setting("apns-channel-id", to: "not base64!", in: headers)), 400,
                "BadChannelId")
            self.expectError(
                try await self.broadcast(
                    fixture,
                    headers: self.setting("apns-channel-id", to: String(repeating: "QUJD", count: 100), in: headers)),
                400, "BadChannelId")
            self.expectError(
                try await self.broadcast(
                    fixture, headers: self.setting("apns-channel-id", to: Self.strangerChannelID, in: headers)), 400,
                "ChannelNotRegistered")
            self.expectError(
                try await self.broadcast(fixture, headers: self.setting("apns-request-id", to: "nope", in: headers)),
                400, "BadMessageId")
            #expect(fixture.simulator.acceptedBroadcasts().isEmpty)

            // Apple's pages spell the push type three ways.
            for spelling in ["Liveactivity", "LiveActivity"] {
                let reply = try await self.broadcast(
                    fixture, headers: self.setting("apns-push-type", to: spelling, in: headers))
                #expect(reply.status == 200)
            }
            // Priorities 5 and 1 are fine too.
            #expect(
                try await self.broadcast(fixture, headers: self.setting("apns-priority", to: "5", in: headers)).status
                    == 200)
        }
    }

    @Test func broadcastRefusesBadBodies() async throws {
        try await Self.with { fixture in
            let channelID = try await self.channel(fixture)
            let headers = self.broadcastHeaders(fixture, channelID: channelID)
            self.expectError(try await self.broadcast(fixture, headers: headers, body: ""), 400, "PayloadEmpty")
            self.expectError(try await self.broadcast(fixture, headers: headers, body: "[1]"), 400, "BadRequestPayload")
            // 5 KB, not the 4 KB of device pushes.
            #expect(
                try await self.broadcast(fixture, headers: headers, body: APNsValidationTests.payload(ofSize: 5120))
                    .status == 200)
            self.expectError(
                try await self.broadcast(fixture, headers: headers, body: APNsValidationTests.payload(ofSize: 5121)),
                413, "PayloadTooLarge")
        }
    }

    @Test func noMessageStoredChannelsTakeOnlyExpirationZero() async throws {
        try await Self.with { fixture in
            let future = String(Int64(Date().timeIntervalSince1970) + 3600)
            let unstored = try await self.channel(fixture, policy: 0)
            self.expectError(
                try await self.broadcast(
                    fixture, headers: self.broadcastHeaders(fixture, channelID: unstored, expiration: future)), 400,
                "BadExpirationDate")
            #expect(
                try await self.broadcast(fixture, headers: self.broadcastHeaders(fixture, channelID: unstored)).status
                    == 200)
            let stored = try await self.channel(fixture, policy: 1)
            #expect(
                try await self.broadcast(
                    fixture, headers: self.broadcastHeaders(fixture, channelID: stored, expiration: future)
                ).status == 200)
        }
    }

    @Test func broadcastOnlyTakesPost() async throws {
        try await Self.with { fixture in
            let channelID = try await self.channel(fixture)
            let headers = self.broadcastHeaders(fixture, channelID: channelID)
            self.expectError(
                try await fixture.push(path: Self.broadcastPath, method: .GET, headers: headers, body: nil), 405,
                "MethodNotAllowed")
            for path in ["/4/broadcasts/apps/", "/4/broadcast/x", Self.broadcastPath + "/more"] {
                self.expectError(try await self.broadcast(fixture, headers: headers, path: path), 404, "BadPath")
            }
        }
    }

    // MARK: Paths, credentials and bundle ids

    @Test func channelManagementPathsAndMethods() async throws {
        try await Self.with { fixture in
            let headers = self.authorization(fixture)
            self.expectError(
                try await fixture.push(path: Self.channelsPath, method: .PUT, headers: headers, body: nil), 405,
                "MethodNotAllowed")
            self.expectError(
                try await fixture.push(
                    path: Self.allChannelsPath, method: .POST, headers: headers,
                    body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#),
                405, "MethodNotAllowed")
            self.expectError(
                try await fixture.push(path: "/1/apps/\(APNsFixture.bundleID)/chanels", method: .GET, headers: headers),
                404, "BadPath")
            self.expectError(
                try await fixture.push(path: Self.channelsPath + "/more", method: .GET, headers: headers), 404,
                "BadPath")
            self.expectError(
                try await self.channelRequest(fixture, method: .GET, channelID: nil), 400, "MissingChannelId")
            self.expectError(
                try await self.channelRequest(fixture, method: .DELETE, channelID: "%%%"), 400, "BadChannelId")
        }
    }

    @Test func credentialsAndBundleIDs() async throws {
        try await Self.with(configure: { configuration in
            configuration.topics = [APNsFixture.bundleID, "com.example.plain"]
            configuration.broadcastTopics = [APNsFixture.bundleID]
        }) { fixture in
            let channelID = try await self.channel(fixture)
            // No token, a bad token.
            self.expectError(try await self.createChannel(fixture, headers: []), 403, "MissingProviderToken")
            self.expectError(
                try await self.createChannel(fixture, headers: [("authorization", "bearer not.a.jwt")]), 403,
                "InvalidProviderToken")
            let noToken = self.setting(
                "authorization", to: nil, in: self.broadcastHeaders(fixture, channelID: channelID))
            self.expectError(try await self.broadcast(fixture, headers: noToken), 403, "MissingProviderToken")
            // Another team's bundle id.
            self.expectError(
                try await fixture.push(
                    path: "/1/apps/com.example.other/all-channels", method: .GET,
                    headers: self.authorization(fixture)), 403, "TopicMismatch")
            self.expectError(
                try await self.broadcast(
                    fixture, headers: self.broadcastHeaders(fixture, channelID: channelID),
                    path: "/4/broadcasts/apps/com.example.other"), 403, "TopicMismatch")
            // A push type's suffix on the bundle id.
            self.expectError(
                try await fixture.push(
                    path: "/1/apps/\(APNsFixture.bundleID).push-type.liveactivity/all-channels", method: .GET,
                    headers: self.authorization(fixture)), 400, "TopicDisallowed")
            // A bundle id of the team without Broadcast Capability.
            self.expectError(
                try await fixture.push(
                    path: "/1/apps/com.example.plain/channels", method: .POST, headers: self.authorization(fixture),
                    body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#), 400, "FeatureNotEnabled")
            // A channel is its bundle id's only.
            fixture.simulator.createChannel(for: "com.example.plain", messageStoragePolicy: .noMessageStored)
            let elsewhere = try #require(fixture.simulator.channels(for: "com.example.plain").first?.id)
            self.expectError(
                try await self.broadcast(fixture, headers: self.broadcastHeaders(fixture, channelID: elsewhere)), 400,
                "ChannelNotRegistered")
        }
    }

    @Test func clientCertificateCoversItsOwnBundleID() async throws {
        try await Self.with(
            configure: { $0.clientCertificateAuthentication = true },
            clientCertificateTopic: APNsFixture.bundleID
        ) { fixture in
            // No authorization header: the certificate authenticates.
            let created = try await self.createChannel(fixture, headers: [])
            #expect(created.status == 201)
            let channelID = try #require(created.headers.first(name: "apns-channel-id"))
            let headers = self.setting(
                "authorization", to: nil, in: self.broadcastHeaders(fixture, channelID: channelID))
            #expect(try await self.broadcast(fixture, headers: headers).status == 200)
            self.expectError(
                try await fixture.push(path: "/1/apps/com.example.other/all-channels", method: .GET, headers: []), 403,
                "TopicMismatch")
        }
    }

    // MARK: Simulator API, faults and the default

    @Test func channelsCreatedAndDeletedBehindTheProvidersBack() async throws {
        try await Self.with { fixture in
            let channelID = fixture.simulator.createChannel(
                for: APNsFixture.bundleID, messageStoragePolicy: .mostRecentMessageStored)
            let headers = self.broadcastHeaders(fixture, channelID: channelID, expiration: "1999999999")
            #expect(try await self.broadcast(fixture, headers: headers).status == 200)
            #expect(fixture.simulator.deleteChannel(channelID))
            #expect(!fixture.simulator.deleteChannel(channelID))
            self.expectError(try await self.broadcast(fixture, headers: headers), 400, "ChannelNotRegistered")
            // Recorded broadcasts go with the other records.
            #expect(fixture.simulator.acceptedBroadcasts().count == 1)
            fixture.simulator.clearRecords()
            #expect(fixture.simulator.acceptedBroadcasts().isEmpty)
        }
    }

    @Test func broadcastsAreNotRecordedWithoutRecordPayloads() async throws {
        try await Self.with(configure: { $0.recordPayloads = false }) { fixture in
            let channelID = try await self.channel(fixture)
            let headers = self.broadcastHeaders(fixture, channelID: channelID)
            #expect(try await self.broadcast(fixture, headers: headers).status == 200)
            #expect(fixture.simulator.acceptedBroadcasts().isEmpty)
            #expect(fixture.simulator.statistics().broadcasts == 1)
        }
    }

    @Test func injectedErrorsCarryTheRequestID() async throws {
        try await Self.with { fixture in
            let requestID = "0c9d8e7f-1234-4abc-8def-0123456789ab"
            fixture.simulator.injectNext([.serviceUnavailable])
            let reply = try await self.createChannel(
                fixture, headers: self.authorization(fixture) + [("apns-request-id", requestID)])
            self.expectError(reply, 503, "ServiceUnavailable")
            #expect(reply.headers.first(name: "apns-request-id") == requestID)
            #expect(fixture.simulator.channels(for: APNsFixture.bundleID).isEmpty)
        }
    }

    @Test func broadcastAPIIsOffByDefault() async throws {
        try await APNsFixture.with { fixture in
            // Without Configuration.broadcast the simulator is the plain device API: an unknown path.
            let reply = try await fixture.push(path: Self.channelsPath)
            #expect(reply.status == 404)
            #expect(reply.reason == "BadPath")
            #expect(reply.apnsID != nil)
            #expect(reply.headers.first(name: "apns-request-id") == nil)
        }
    }

    @Test func devicePushesAreUnchangedWithBroadcastOn() async throws {
        try await Self.with { fixture in
            let reply = try await fixture.push()
            #expect(reply.status == 200)
            #expect(reply.apnsID != nil)
            #expect(reply.headers.first(name: "apns-request-id") == nil)
            #expect(fixture.simulator.acceptedTokens() == [APNsFixture.deviceToken])
            self.expectErrorOfDeviceAPI(try await fixture.push(path: "/3/devices/abcd"), 404, "BadPath")
        }
    }

    private func expectErrorOfDeviceAPI(
        _ reply: APNsFixture.Reply, _ status: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, sourceLocation: sourceLocation)
        #expect(reply.reason == reason, sourceLocation: sourceLocation)
        #expect(reply.apnsID != nil, sourceLocation: sourceLocation)
    }
}

import Foundation
import HeraldSimulators
import HeraldTestSupport
import Testing

/// APNs broadcast channels (iOS 18, issue 41) against the APNs simulator: managed through
/// `/apns/<provider>/channels` on Apple's management API, and sent to by a publish with
/// `apnsChannel` and by a raw send to `channel:<id>`, one request for every follower.
@Suite struct BroadcastChannelTests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func createListReadSendAndDelete() async throws {
        let bed = try await APNsTestBed.start { configuration in
            configuration.broadcast = true
            configuration.recordPayloads = true
        }
        let yaml = """
            providers:
            \(bed.providerYAML)
                broadcast_endpoint: https://127.0.0.1:\(bed.configuration.port)
            delivery:
              max_attempts: 1
            """
        do {
            try await withHerald(yaml: yaml) { herald in
                let created = try await herald.request(.POST, "/apns/apns/channels", json: #"{"message_storage_policy":1}"#)
                #expect(created.status == 201, "\(created.body)")
                let id = try #require(try json(created.body)["id"] as? String)
                #expect(bed.simulator.channels(for: bed.topic).map(\.id) == [id])
                #expect(bed.simulator.channels(for: bed.topic).first?.messageStoragePolicy == .mostRecentMessageStored)
                let encoded = try #require(id.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                let listed = try json(try await herald.request(.GET, "/apns/apns/channels").body)
                #expect(listed["channels"] as? [String] == [id])
                let read = try json(try await herald.request(.GET, "/apns/apns/channels/\(encoded)").body)
                #expect(read["message_storage_policy"] as? Int == 1)

                // A publish to the channel: one broadcast, whoever follows it.
                let publish = #"{"msg":"Goal","apnsChannel":"\#(id)","liveActivity":{"event":"update","contentState":{"home":1}}}"#
                #expect(try await herald.request(.POST, "/event/match", json: publish).status == 204)
                try await eventually { bed.simulator.acceptedBroadcasts().count == 1 }
                let broadcast = try #require(bed.simulator.acceptedBroadcasts().first)
                #expect(broadcast.channelID == id)
                #expect(broadcast.bundleID == bed.topic)
                #expect(broadcast.header("apns-push-type") == "liveactivity")
                #expect(broadcast.header("apns-topic") == nil)
                let aps = try #require(try json(broadcast.body)["aps"] as? [String: Any])
                #expect(aps["event"] as? String == "update")

                // A raw send to `channel:<id>`.
                let raw = #"{"proto":"apns","tokens":["channel:\#(id)"],"payload":{"aps":{"event":"end","content-state":{"home":2}}}}"#
                #expect(try await herald.request(.POST, "/send", json: raw).status == 202)
                try await eventually { bed.simulator.acceptedBroadcasts().count == 2 }

                // Deleted: gone from Apple, and a broadcast to it is refused and fed back.
                #expect(try await herald.request(.DELETE, "/apns/apns/channels/\(encoded)").status == 204)
                #expect(bed.simulator.channels(for: bed.topic).isEmpty)
                #expect(try await herald.request(.GET, "/apns/apns/channels/\(encoded)").status == 404)
                #expect(try await herald.request(.POST, "/send", json: raw).status == 202)
                try await eventually {
                    let entries = (try json(try await herald.request(.GET, "/feedback").body)["entries"] as? [[String: Any]]) ?? []
                    return entries.contains { $0["token"] as? String == "channel:\(id)" && ($0["reason"] as? String)?.hasPrefix("ChannelNotRegistered") == true }
                }

                // Refusals: an unknown provider, a channel publish without a Live Activity.
                #expect(try await herald.request(.GET, "/apns/other/channels").status == 404)
                let plain = try await herald.request(.POST, "/event/match", json: #"{"msg":"x","apnsChannel":"\#(id)"}"#)
                #expect(plain.status == 400)
                #expect(try json(plain.body)["error"] as? String == "A channel publish is a Live Activity update: it needs liveActivity")
            }
            await bed.simulator.stop()
        } catch {
            await bed.simulator.stop()
            throw error
        }
    }
}

import HeraldCore
import HeraldGCMLegacy
import Testing

/// The legacy GCM data message (rs/pushd's GCM rows).
@Suite struct GCMLegacyRendererTests {
    let renderer = GCMLegacyRenderer()
    let now: Int64 = 1_700_000_000

    func members(_ result: RenderResult<GCMLegacyMessage>) throws -> String {
        guard case .send(let message) = result else {
            Issue.record("expected a message, got \(result)")
            throw CancellationError()
        }
        return message.members
    }

    @Test func titleMessageAndDataInOrder() throws {
        #expect(
            try members(renderer.render(.sample(), for: MessageVariant(lang: "fr"), now: now))
                == #""collapse_key":"sport","data":{"title":"But","message":"L'équipe A marque","score":"2-1"}"#)
    }

    @Test func dataKeysWinAndReservedKeysAreDropped() throws {
        let event = PublishedEvent.sample(data: ["title": "from data", "from": "x", "gcm.n": "y", "google.z": "z", "message_type": "m", "k": "v"])
        #expect(
            try members(renderer.render(event, for: MessageVariant(), now: now))
                == #""collapse_key":"sport","data":{"title":"from data","message":"Team A scores","k":"v"}"#)
    }

    @Test func silentSubscriptionsGetNoTexts() throws {
        #expect(try members(renderer.render(.sample(), for: MessageVariant(silent: true), now: now)) == #""collapse_key":"sport","data":{"score":"2-1"}"#)
    }

    @Test func extensionKeysMapOntoGCMFields() throws {
        var event = PublishedEvent.sample()
        event.collapseKey = "k"
        event.priority = .normal
        event.expiration = now + 99
        #expect(try members(renderer.render(event, for: MessageVariant(silent: true), now: now))
            == #""collapse_key":"k","priority":"normal","time_to_live":99,"data":{"score":"2-1"}"#)
        event.expiration = nil
        event.ttl = 10_000_000
        #expect(try members(renderer.render(event, for: MessageVariant(silent: true), now: now)).contains(#""time_to_live":2419200"#))
    }

    @Test func moreThan4096BytesOfDataIsAMessageFailure() {
        let event = PublishedEvent.sample(data: ["big": String(repeating: "x", count: 4094)])
        guard case .fail(let outcome) = renderer.render(event, for: MessageVariant(silent: true), now: now) else {
            Issue.record("expected a failure")
            return
        }
        #expect(outcome.outcome == .messageFailure)
        #expect(outcome.reason == "PayloadTooLarge")
    }

    @Test func eachRenderingHasItsOwnIdentity() throws {
        guard case .send(let a) = renderer.render(.sample(), for: MessageVariant(), now: now),
            case .send(let b) = renderer.render(.sample(), for: MessageVariant(), now: now)
        else {
            Issue.record("expected messages")
            return
        }
        #expect(a.members == b.members)
        #expect(a.id != b.id)
    }
}

import HeraldSimulators
import HeraldTestSupport
import Testing

extension ChoominatorTests {
    @Test func registrationsOverTheRegisterLimitAreDroppedAndCounted() async throws {
        let limits = """
            server:
              rate_limit:
                register: {rate: 0.001, burst: 1}

            """
        try await withChoominator(extra: limits) { herald, _ throws in
            try await register(herald, device: APNsTestBed.token(1), group: "g1")
            try await register(herald, device: APNsTestBed.token(2), group: "g1")
            try await eventually {
                try await metric(herald, #"herald_choominator_datagrams_total{port="registration",reason="rate_limited",result="rejected"} 1"#)
            }
            #expect(try await metric(herald, #"herald_rate_limited_total{realm="register"} 1"#))
            #expect(try await herald.application.store.counts().subscribers == 1, "the second registration changed nothing")
        }
    }

    @Test func notificationsOverThePublishLimitAreDropped() async throws {
        let limits = """
            server:
              rate_limit:
                publish: {rate: 0.001, burst: 1}

            """
        try await withChoominator(extra: limits) { herald, bed throws in
            try await notify(herald, #"{"group":"g1","payload":{"aps":{}}}"#)
            try await notify(herald, #"{"group":"g1","payload":{"aps":{}}}"#)
            try await eventually {
                try await metric(herald, #"herald_choominator_datagrams_total{port="notification",reason="rate_limited",result="rejected"} 1"#)
            }
            #expect(try await metric(herald, #"herald_choominator_datagrams_total{port="notification",result="no_recipients"} 1"#))
            #expect(try await metric(herald, #"herald_rate_limited_total{realm="publish"} 1"#))
        }
    }
}

import Foundation
import HeraldTestSupport
import Testing

/// `GET /metrics` in the Prometheus text format (realm admin).
@Suite struct MetricsTests {
    @Test func countsPublishesDeliveriesAndRequests() async throws {
        try await withHerald { herald in
            try await withReceiver { receiver in
                let id = try await Fixtures.register(herald, url: receiver.url("/m"))
                #expect(try await herald.request(.POST, "/subscriber/\(id)/subscriptions/e").status == 201)
                #expect(try await herald.request(.POST, "/event/e", form: "msg=x").status == 204)
                #expect(try await herald.request(.POST, "/event/e", form: "foo=bar").status == 400)
                try await receiver.waitFor(count: 1)
                try await eventually { try await herald.application.store.counts().jobs == 0 }

                let response = try await herald.request(.GET, "/metrics")
                #expect(response.status == 200)
                #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
                let text = response.body
                #expect(text.contains(#"herald_publishes_total{result="accepted"} 1"#))
                #expect(text.contains(#"herald_publishes_total{code="invalid_request",result="rejected"} 1"#))
                #expect(text.contains(#"herald_deliveries_total{provider="http",outcome="delivered"} 1"#))
                #expect(text.contains(#"herald_http_requests_total{route="/event/{event}",method="POST",status="204"} 1"#))
                #expect(text.contains(#"herald_backlog{kind="jobs"} 0"#))
                #expect(text.contains("herald_delivery_duration_seconds_bucket"))
            }
        }
    }

    @Test func metricsNeedTheAdminRealm() async throws {
        let yaml = "server:\n  auth:\n    app: {password: pw, realms: [register]}\n"
        try await withHerald(yaml: yaml) { herald throws in
            let credentials = "Basic " + Data("app:pw".utf8).base64EncodedString()
            #expect(try await herald.request(.GET, "/metrics", headers: [("Authorization", credentials)]).status == 403)
        }
    }
}

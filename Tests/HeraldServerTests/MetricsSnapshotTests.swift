@testable import HeraldServer
import Testing

/// Reading the Prometheus text back into the stream's samples.
@Suite struct MetricsSnapshotTests {
    @Test func samplesKeepNamesSortLabelsAndSkipBuckets() {
        let text = """
            # HELP herald_deliveries_total Deliveries.
            # TYPE herald_deliveries_total counter
            herald_deliveries_total{provider="apns",outcome="delivered"} 12
            herald_backlog{kind="jobs"} 3.0
            herald_sse_listeners 0
            herald_delivery_duration_seconds_bucket{provider="apns",le="0.001"} 4
            herald_delivery_duration_seconds_sum{provider="apns"} 0.25
            herald_odd{path="a \\"quoted\\" \\\\ value",b="x"} NaN
            broken{unterminated="x 1
            """
        let snapshot = MetricsSnapshot(prometheusText: text)
        #expect(snapshot.samples.map(\.name) == [
            "herald_deliveries_total", "herald_backlog", "herald_sse_listeners", "herald_delivery_duration_seconds_sum", "herald_odd",
        ])
        #expect(snapshot.samples[0].labelText == #"outcome="delivered",provider="apns""#)
        #expect(snapshot.samples[0].value == 12)
        #expect(snapshot.samples[1].value == 3)
        #expect(snapshot.samples[2].labels.isEmpty)
        #expect(snapshot.samples[4].labels.last?.value == #"a "quoted" \ value"#)
        #expect(snapshot.samples[4].labelText == #"b="x",path="a \"quoted\" \\ value""#)
        #expect(snapshot.samples[4].value == nil)

        let json = snapshot.json(timeMillis: 1_000)
        #expect(json.hasPrefix(#"{"time":1000,"samples":[{"name":"herald_deliveries_total","labels":{"outcome":"delivered","provider":"apns"},"key":"outcome=\"delivered\",provider=\"apns\"","value":12}"#))
        #expect(json.contains(#""name":"herald_delivery_duration_seconds_sum","labels":{"provider":"apns"},"key":"provider=\"apns\"","value":0.25}"#))
        #expect(json.contains(#""value":null}"#))
    }
}

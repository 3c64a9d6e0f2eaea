import HeraldCore
import Testing

@testable import HeraldCompatMatrix

/// Which configured app a device's `app_id` picks (compat.md §8.1): an exact name first, then
/// exactly one glob.
@Suite struct MatrixAppTableTests {
    func table(_ patterns: [String]) -> MatrixAppTable {
        MatrixAppTable(patterns.map { MatrixApp(pattern: $0, provider: "p-\($0)", delivery: .fcm(options: [])) })
    }

    func picked(_ table: MatrixAppTable, _ appID: String) -> String? {
        if case .app(let app) = table.match(appID) { app.pattern } else { nil }
    }

    @Test func anExactNameWinsOverEveryGlob() {
        let apps = table(["im.example.*", "im.example.ios", "*.ios"])
        #expect(picked(apps, "im.example.ios") == "im.example.ios")
    }

    @Test func oneMatchingGlobPicksItsApp() {
        let apps = table(["im.example.android.*", "im.example.ios", "org.?.app"])
        #expect(picked(apps, "im.example.android.beta") == "im.example.android.*")
        #expect(picked(apps, "org.x.app") == "org.?.app")
        #expect(picked(apps, "org.xy.app") == nil, "? is one character")
    }

    @Test func severalMatchingGlobsAreAmbiguousAndNoneIsUnknown() {
        let apps = table(["im.example.*", "*.beta"])
        guard case .ambiguous(let patterns) = apps.match("im.example.beta") else {
            Issue.record("expected ambiguous")
            return
        }
        #expect(patterns.sorted() == ["*.beta", "im.example.*"])
        guard case .unknown = apps.match("org.other") else {
            Issue.record("expected unknown")
            return
        }
    }

    @Test func fcmOptionsKeepTheirYAMLTypes() {
        let value = MatrixAppTable.bodyValue(.map(["priority": .scalar("high"), "ttl": .scalar("3600"), "direct": .scalar("true")]))
        #expect(value.jsonText == #"{"priority":"high","ttl":3600,"direct":true}"#)
    }
}

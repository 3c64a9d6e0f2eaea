import HeraldCore
import Testing

@Suite("Badge logic (§7)")
struct BadgeLogicTests {
    @Test("parseInt as JavaScript", arguments: [
        ("5", 5), ("5abc", 5), ("  7", 7), ("\t\n-3", -3), ("+4", 4), ("-0", 0), ("3.9", 3), ("0x10", 0), ("1e3", 1),
        ("007", 7), ("\u{00A0}8", 8), ("\u{FEFF}9", 9), ("\u{3000}\u{2028}10", 10), ("12 34", 12),
        ("99999999999999999999999", 9_007_199_254_740_991), ("-99999999999999999999999", -9_007_199_254_740_991),
        ("9007199254740991", 9_007_199_254_740_991),
    ] as [(String, Int)])
    func parseInt(_ text: String, _ expected: Int) {
        #expect(BadgeLogic.parseInt(text) == expected)
    }

    @Test("parseInt without digits is no number", arguments: ["", " ", "abc", "-", "+", "- 5", "+-5", ".5", "x5", "٣", "NaN"])
    func parseIntNoDigits(_ text: String) {
        #expect(BadgeLogic.parseInt(text) == nil)
    }

    @Test("parseInt handles absurd lengths without overflowing")
    func parseIntLongInput() {
        let digits = String(repeating: "9", count: 100_000)
        #expect(BadgeLogic.parseInt(digits) == BadgeLogic.maximumMagnitude)
        #expect(BadgeLogic.badgeToSend(payloadBadge: digits, storedBadge: nil, increment: true) == BadgeLogic.maximumMagnitude + 1)
    }

    /// One row of the §7 table: what is sent, and what is stored afterwards.
    private func deliver(stored: String?, payloadBadge: String?, increment: Bool) -> (sent: Int?, storedAfter: String?) {
        let sent = BadgeLogic.badgeToSend(payloadBadge: payloadBadge, storedBadge: stored, increment: increment)
        return (sent, increment ? BadgeLogic.incrementedStoredBadge(stored) : stored)
    }

    @Test("the §7 table", arguments: [
        // stored, payload (msg=x&...), sent, stored after
        ("3", "msg=x", 4, "4"),
        ("4", "msg=x&incrementBadge=false", 4, "4"),
        (nil, "msg=x", nil, "1"),
        (nil, "msg=x&incrementBadge=false", nil, nil),
        ("3", "msg=x&badge=10", 11, "4"),
        ("3", "msg=x&badge=10&incrementBadge=false", 10, "3"),
    ] as [(String?, String, Int?, String?)])
    func table(_ stored: String?, _ payload: String, _ sent: Int?, _ storedAfter: String?) throws {
        let notification = try PayloadCompiler.compile(form(payload), event: "e")
        let result = deliver(stored: stored, payloadBadge: notification.badge, increment: notification.incrementBadge)
        #expect(result.sent == sent)
        #expect(result.storedAfter == storedAfter)
    }

    @Test("a silent subscription counts the same (the last §7 row)")
    func silentRow() throws {
        // Silence removes the alert, not the badge: the logic takes no `silent` input at all.
        let notification = try PayloadCompiler.compile(form("msg=x"), event: "e")
        let result = deliver(stored: "3", payloadBadge: notification.badge, increment: notification.incrementBadge)
        #expect(result.sent == 4)
        #expect(result.storedAfter == "4")
    }

    @Test("badgeToSend bases", arguments: [
        ("", "3", true, 4),  // an empty payload badge falls back to the stored one
        (nil, "3", false, 3),
        ("abc", "3", true, nil),  // a non-empty payload badge is the base even when it is no number
        ("5abc", nil, true, 6),
        (nil, "7.5", true, 8),
        (nil, "junk", true, nil),
        ("-3", nil, true, -2),
        ("0", "9", false, 0),
        (" 2", nil, false, 2),
    ] as [(String?, String?, Bool, Int?)])
    func bases(_ payloadBadge: String?, _ stored: String?, _ increment: Bool, _ expected: Int?) {
        #expect(BadgeLogic.badgeToSend(payloadBadge: payloadBadge, storedBadge: stored, increment: increment) == expected)
    }

    @Test("the stored badge after an incrementing delivery", arguments: [
        (nil, "1"), ("3", "4"), ("0", "1"), ("-1", "0"), ("007", "8"), ("abc", "1"), ("", "1"), ("5abc", "1"), ("7.5", "1"),
        ("+5", "1"), (" 5", "1"), ("9007199254740990", "9007199254740991"), ("9007199254740991", "1"), ("99999999999999999999", "1"),
    ] as [(String?, String)])
    func incremented(_ stored: String?, _ expected: String) {
        #expect(BadgeLogic.incrementedStoredBadge(stored) == expected)
    }
}

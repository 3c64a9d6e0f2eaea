import HeraldCore
import Testing

@Suite("Subscriber id order")
struct SubscriberIDOrderTests {
    @Test("ids order by their UTF-8 bytes, as the stores' indexes do")
    func byteOrder() {
        // Uppercase sorts before lowercase, '-' before digits, '_' between: byte order, not
        // any locale's; a prefix sorts first; bytes past ASCII sort last; long (heap) and
        // short (inline) strings alike.
        let texts = [
            "", "-", "-a", "0", "9zzzzzzzzzz", "A", "AAAAAAAAAAA", "AAAAAAAAAAAB", "Z", "_", "a", "a-", "z",
            "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "é",
        ]
        let ids = texts.map(SubscriberID.init(rawValue:))
        for (i, a) in ids.enumerated() {
            for (j, b) in ids.enumerated() {
                #expect((a < b) == (i < j), "\(a) < \(b)")
            }
        }
        let random = (0..<500).map { _ in SubscriberID.random() }
        #expect(random.sorted().map(\.rawValue) == random.map(\.rawValue).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }
}

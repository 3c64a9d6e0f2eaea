import Foundation
import HeraldCore
import Testing

/// The hand-written base64url encoder against Foundation's base64 (RFC 4648 §5, unpadded).
@Suite("Base64URL")
struct Base64URLTests {
    @Test("encodes every length from 0 to 64 bytes as Foundation's base64 with the URL alphabet and no padding")
    func matchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected, "length \(length)")
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "round trip, length \(length)")
        }
    }

    @Test("the RFC 4648 test vectors, and the two URL-safe digits")
    func vectors() {
        #expect(Base64URL.encode(Array("".utf8)) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test("subscriber ids are 11 base64url characters and differ")
    func subscriberIDs() {
        let ids = (0..<1000).map { _ in SubscriberID.random().rawValue }
        #expect(ids.allSatisfy { $0.utf8.count == 11 && Base64URL.decode($0)?.count == 8 })
        #expect(Set(ids).count == 1000)
    }
}

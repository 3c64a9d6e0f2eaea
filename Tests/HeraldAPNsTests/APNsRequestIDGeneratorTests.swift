import Foundation
import Testing

@testable import HeraldAPNs

@Suite("APNsRequestIDGenerator")
struct APNsRequestIDGeneratorTests {
    @Test("ids are lower-case version 4 UUIDs, distinct across calls and generators")
    func shape() throws {
        let generator = APNsRequestIDGenerator()
        let ids = (0..<10_000).map { _ in generator.next() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(100) {
            let uuid = try #require(UUID(uuidString: id), "\(id)")
            #expect(uuid.uuidString.lowercased() == id)
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4, "version 4")
            #expect(bytes[8] >> 6 == 0b10, "RFC 9562 variant")
        }
        #expect(APNsRequestIDGenerator().next() != APNsRequestIDGenerator().next())
    }
}

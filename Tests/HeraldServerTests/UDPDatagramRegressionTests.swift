import Foundation
import Testing

/// The UDP datagram inputs the fuzzer found or was seeded with (Tests/HeraldCoreTests/FuzzInputs/FuzzUDPDatagram),
/// replayed through the fuzz target's own invariants.
@Suite struct UDPDatagramRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HeraldCoreTests/FuzzInputs/FuzzUDPDatagram")

    static var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func thereAreStoredInputs() {
        #expect(Self.inputs.count >= 10)
    }

    @Test(arguments: inputs)
    func storedInputKeepsTheInvariants(_ name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(name)))
        try UDPDatagramOracle.check(bytes)
    }

    @Test func decompressionBoundIsExact() throws {
        try UDPDatagramOracle.checkBound()
    }
}

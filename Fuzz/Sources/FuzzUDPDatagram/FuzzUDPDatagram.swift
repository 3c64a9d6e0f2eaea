import CFuzzerEntry

// Fuzzes the UDP event port's datagram decoder (`EventDatagram.decode`) and what the
// service does with a decoded datagram. The invariants are in UDPDatagramOracle.swift.

/// libFuzzer's entry point, called once per generated input; a broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    do {
        try UDPDatagramOracle.check(Array(UnsafeBufferPointer(start: data, count: size)))
    } catch {
        fatalError("FuzzUDPDatagram: \(error)")
    }
    return 0
}

/// The process entry point under the name SwiftPM links `main` to; it hands over to libFuzzer.
@_cdecl("FuzzUDPDatagram_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    herald_fuzzer_main(argc, argv)
}

/// Called by libFuzzer once before the first input: the deterministic check of the bound's edge.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    do {
        try UDPDatagramOracle.checkBound()
    } catch {
        fatalError("FuzzUDPDatagram: \(error)")
    }
    return 0
}

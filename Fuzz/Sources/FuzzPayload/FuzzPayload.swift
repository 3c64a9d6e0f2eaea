import CFuzzerEntry
import FuzzOracles

// Fuzzes published payloads: a JSON or form body through `RequestBodyDecoder` and `PayloadCompiler`, as `POST /event/:event` does.
// The invariants are in Tests/HeraldCoreTests/FuzzRegressionTests.swift (the FuzzOracles module).

/// libFuzzer's entry point, called once per generated input; a broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.payload.fuzz(data, size)
    return 0
}

/// The process entry point under the name SwiftPM links `main` to; it hands over to libFuzzer.
@_cdecl("FuzzPayload_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    herald_fuzzer_main(argc, argv)
}

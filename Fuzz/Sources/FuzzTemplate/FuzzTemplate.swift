import CFuzzerEntry
import FuzzOracles

// Fuzzes title and message templates: `Template` against a naive model of rs/pushd's regular expression.
// The invariants are in Tests/HeraldCoreTests/FuzzRegressionTests.swift (the FuzzOracles module).

/// libFuzzer's entry point, called once per generated input; a broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.template.fuzz(data, size)
    return 0
}

/// The process entry point under the name SwiftPM links `main` to; it hands over to libFuzzer.
@_cdecl("FuzzTemplate_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    herald_fuzzer_main(argc, argv)
}

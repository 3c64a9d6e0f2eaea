#ifndef HERALD_CFUZZERENTRY_H
#define HERALD_CFUZZERENTRY_H

/// Runs libFuzzer's driver on the target's `LLVMFuzzerTestOneInput`, as libFuzzer's own `main` does.
///
/// SwiftPM links every executable on Linux with `--defsym main=<Module>_main` (so that tests can
/// link executables), which replaces libFuzzer's `main`; each fuzz target therefore defines
/// `<Module>_main` and calls this.
int herald_fuzzer_main(int argc, char **argv);

#endif

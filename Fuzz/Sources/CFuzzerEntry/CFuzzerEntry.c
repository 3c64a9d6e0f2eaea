#include "CFuzzerEntry.h"

#include <stddef.h>
#include <stdint.h>

// Both are defined at link time: the first by libFuzzer (LLVM 12 and later), the second by the
// fuzz target with `@_cdecl("LLVMFuzzerTestOneInput")`.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
extern int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int herald_fuzzer_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

// The launcher bootstrap on its own (built with the runtime sources, so internal names link):
// ishmrun -n 4 ./boottest [mismatch|leave]
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "bootstrap_select.h"

using namespace ishmemi;

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
    const char* kind;
    ishmemx_attr_t attr;
    auto boot = select_bootstrap(&attr, "boottest", &kind);
    const int me = boot->pe(), n = boot->n_pes();
    // Larger than one message in both directions.
    const size_t bytes = 3 * 64 * 1024 + 123;
    std::vector<unsigned char> in(bytes), out(bytes * n);
    for (size_t i = 0; i < bytes; ++i) in[i] = static_cast<unsigned char>(me * 31 + i);
    for (int rep = 0; rep < 3; ++rep) {
        boot->allgather(in.data(), out.data(), bytes);
        for (int pe = 0; pe < n; ++pe)
            for (size_t i = 0; i < bytes; ++i)
                if (out[pe * bytes + i] != static_cast<unsigned char>(pe * 31 + i)) {
                    fprintf(stderr, "PE %d: allgather wrong at PE %d byte %zu\n", me, pe, i);
                    return 1;
                }
        boot->barrier();
    }
    int zero = 0;
    boot->allgather(&zero, out.data(), 0);
    if (!strcmp(mode, "mismatch") && me == 1) boot->barrier();
    if (!strcmp(mode, "leave") && me == n - 1) return 0;
    boot->allgather(in.data(), out.data(), 8);
    printf("PE %d of %d (%s): OK\n", me, n, kind);
    return 0;
}

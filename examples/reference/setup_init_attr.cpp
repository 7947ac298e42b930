// Initialize with attributes: ask for the library's own launcher rather than MPI.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmemx_attr_t attr;  // C++ gives every field a default
    attr.runtime = ISHMEMX_RUNTIME_OPENSHMEM;
    attr.initialize_runtime = false;
    ishmemx_init_attr(&attr);
    const int me = ishmem_my_pe();
    if (ishmemx_runtime_get_type() != ISHMEMX_RUNTIME_OPENSHMEM) {
        std::printf("PE %d: wrong runtime\n", me);
        return 1;
    }
    if (me == 0) std::printf("setup_init_attr: %d PEs: OK\n", ishmem_n_pes());
    ishmem_finalize();
    return 0;
}

// Ask the library who this PE is, how many PEs run, which version and runtime; stop all PEs if an
// answer is wrong.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>
#include <cstring>

int main() {
    int before = -1, after = -1, major = 0, minor = 0;
    ishmemx_query_initialized(&before);  // 0: ishmem_init has not run yet
    ishmem_init();
    ishmemx_query_initialized(&after);
    char name[ISHMEM_MAX_NAME_LEN];
    ishmem_info_get_name(name);
    ishmem_info_get_version(&major, &minor);
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const bool ok = before == 0 && after == 1 && me >= 0 && me < n && major == ISHMEM_MAJOR_VERSION &&
                    minor == ISHMEM_MINOR_VERSION && std::strcmp(name, ISHMEM_VENDOR_STRING) == 0 &&
                    ishmemx_runtime_get_type() == ISHMEMX_RUNTIME_OPENSHMEM;  // started by ishmrun
    if (!ok) {
        std::printf("PE %d: unexpected answer\n", me);
        ishmem_global_exit(1);  // ends every PE's process with status 1
    }
    if (me == 0) std::printf("setup_query: %d PEs, %s %d.%d: OK\n", n, name, major, minor);
    ishmem_finalize();
    return 0;
}

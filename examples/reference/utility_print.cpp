// Messages through the library: to standard output, to standard error with the caller's location,
// and a debug message that appears only when ISHMEM_DEBUG is on.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmemx_pcontrol(1);  // a hint for profiling tools; no effect without one
    ishmem_init();
    const int me = ishmem_my_pe();
    ishmemx_print("only shown with ISHMEM_DEBUG=1\n");  // DEBUG
    if (me == 0) {
        ishmemx_print("utility_print: to standard output\n", ishmemx_print_msg_type_t::STDOUT);
        ishmemx_print(__FILE__, __LINE__, __func__, "utility_print: a warning\n", ishmemx_print_msg_type_t::WARNING);
    }
    std::fflush(stdout);
    ishmem_finalize();
    return 0;
}

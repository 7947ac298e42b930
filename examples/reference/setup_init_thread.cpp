// Ask for the thread level that lets every thread call ishmem, and check what was granted.
#include <ishmem.h>

#include <cstdio>

int main() {
    int provided = -1, queried = -1;
    if (ishmem_init_thread(ISHMEM_THREAD_MULTIPLE, &provided) != 0) return 1;
    ishmem_query_thread(&queried);
    const int me = ishmem_my_pe();
    if (provided != ISHMEM_THREAD_MULTIPLE || queried != provided) {
        std::printf("PE %d: thread level %d, queried %d\n", me, provided, queried);
        return 1;
    }
    if (me == 0) std::printf("setup_init_thread: ISHMEM_THREAD_MULTIPLE: OK\n");
    ishmem_finalize();
    return 0;
}

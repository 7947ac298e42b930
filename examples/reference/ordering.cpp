// Ordering: a fence keeps the data put ahead of the flag put to the same PE; quiet completes both.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes(), right = (me + 1) % n;
    int* data = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    int* flag = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
    ishmem_int_p(data, 100 + me, right);
    ishmem_fence();  // the data reaches right before the flag does
    ishmem_int_p(flag, 1, right);
    ishmem_quiet();  // both puts are complete at right
    ishmem_int_wait_until(flag, ISHMEM_CMP_EQ, 1);
    const int bad = *data != 100 + (me + n - 1) % n;
    std::printf("ordering: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}

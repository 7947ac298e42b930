// Signals that count: every PE adds to PE 0's signal (with and without data), and PE 0 waits for
// the sum; then PE 0 sets every PE's go signal.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    long* slots = static_cast<long*>(ishmem_calloc(n, sizeof(long)));
    uint64_t* count = static_cast<uint64_t*>(ishmem_calloc(2, sizeof(uint64_t)));  // [0] arrivals, [1] go
    const long mine = 10L * me;
    ishmem_long_put_signal_nbi(&slots[me], &mine, 1, &count[0], 1, ISHMEM_SIGNAL_ADD, 0);
    ishmemx_signal_add(&count[0], 1, 0);  // a second arrival, without data
    int bad = 0;
    if (me == 0) {
        ishmem_signal_wait_until(&count[0], ISHMEM_CMP_EQ, 2 * static_cast<uint64_t>(n));
        for (int pe = 0; pe < n; ++pe) bad |= slots[pe] != 10L * pe;
        for (int pe = 0; pe < n; ++pe) ishmemx_signal_set(&count[1], 1, pe);
    }
    ishmem_signal_wait_until(&count[1], ISHMEM_CMP_EQ, 1);
    ishmem_quiet();  // completes this PE's put_signal_nbi before mine goes out of scope
    std::printf("signal_add: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}

// Put with signal: PE 0 sends data with a signal to every other PE; each waits for the signal,
// after which the data is there.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    constexpr size_t len = 64;
    int* data = static_cast<int*>(ishmem_calloc(len, sizeof(int)));
    uint64_t* ready = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));
    int bad = 0;
    if (me == 0) {
        int payload[len];
        for (size_t i = 0; i < len; ++i) payload[i] = static_cast<int>(i * i);
        for (int pe = 1; pe < n; ++pe) ishmem_int_put_signal(data, payload, len, ready, 7, ISHMEM_SIGNAL_SET, pe);
    } else {
        const uint64_t got = ishmem_signal_wait_until(ready, ISHMEM_CMP_EQ, 7);  // returns the signal
        for (size_t i = 0; i < len; ++i) bad |= data[i] != static_cast<int>(i * i);
        bad |= got != 7 || ishmem_signal_fetch(ready) != 7;
    }
    std::printf("signal_put: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}

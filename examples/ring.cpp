// ring: a token travels once around all PEs. Each PE waits for the token with put-with-signal,
// adds its PE number and forwards it; PE 0 checks that the total is 0 + 1 + ... + (n - 1).
//   ishmrun -n 4 ./ring
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>
#include <sched.h>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    long* token = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    uint64_t* arrived = static_cast<uint64_t*>(ishmem_calloc(1, sizeof(uint64_t)));

    long value = 0;
    if (me != 0) {  // wait for the token from the left neighbour (PE 0 starts the ring)
        while (ishmem_signal_fetch(arrived) == 0) sched_yield();
        value = ishmem_long_g(token, me);  // not *token: on the CUDA backend the heap is GPU memory
    }
    value += me;
    const int right = (me + 1) % n;
    ishmem_long_put_signal(token, &value, 1, arrived, 1, ISHMEM_SIGNAL_SET, right);
    if (me == 0) {  // the token comes back after visiting every PE
        while (ishmem_signal_fetch(arrived) == 0) sched_yield();
        const long expected = static_cast<long>(n) * (n - 1) / 2;
        std::printf("ring of %d PEs: token came back as %ld (expected %ld): %s\n", n, *token, expected,
                    *token == expected ? "OK" : "WRONG");
        if (*token != expected) return 1;
    }
    ishmem_barrier_all();
    ishmem_free(arrived);
    ishmem_free(token);
    ishmem_finalize();
    return 0;
}

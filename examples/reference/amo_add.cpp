// Arithmetic atomics on a counter held by PE 0: every PE adds, increments and draws tickets.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    long* counter = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    long* tickets = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    ishmem_long_atomic_add(counter, me, 0);                            // adds me
    ishmem_long_atomic_inc(counter, 0);                                // adds 1
    const long before = ishmem_long_atomic_fetch_add(counter, 10, 0);  // adds 10, returns the old value
    const long ticket = ishmem_atomic_fetch_inc(tickets, 0);           // generic form: 0 .. n - 1, each once
    ishmem_barrier_all();
    const long total = ishmem_long_atomic_fetch(counter, 0);  // an atomic read
    const long expected = static_cast<long>(n) * (n - 1) / 2 + 11L * n;
    const int bad = total != expected || before < 0 || before > expected - 10 || ticket < 0 || ticket >= n;
    std::printf("amo_add: PE %d: counter %ld, ticket %ld: %s\n", me, total, ticket, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}

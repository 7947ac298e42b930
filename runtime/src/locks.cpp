// Ticket locks. PE 0's copy of the lock word holds two 32-bit counters: the high half is the next
// ticket to hand out, the low half the ticket being served; the lock is free when they are equal,
// which the all-zero initial word is. set_lock draws a ticket with one fetch-and-add of 2^32 and
// polls until the low half reaches it, so waiters are served in the order they drew (fair: none
// waits while another takes the lock twice). clear_lock advances the low half with a
// compare-and-swap, never carrying into the high half, after a quiet that completes the holder's
// operations; the holder's releasing atomic and the next holder's acquiring poll order the
// critical sections. Counters compare modulo 2^32, so they may wrap.
#include "ishmem/impl/locks.h"

#include <cstdint>

#include "ishmem/impl/amo.h"
#include "ishmem/impl/ordering.h"
#include "ishmem/impl/sync.h"

namespace ishmemi::impl {

namespace {

constexpr int home = 0;  // the PE whose copy of the word is the lock
constexpr long next_ticket_one = long{1} << 32;

uint32_t next_ticket(long word) { return static_cast<uint32_t>(static_cast<uint64_t>(word) >> 32); }
uint32_t serving(long word) { return static_cast<uint32_t>(static_cast<uint64_t>(word)); }

}  // namespace

void set_lock(long* lock) {
    const uint32_t ticket = next_ticket(atomic_fetch_add(lock, next_ticket_one, home));
    for (backoff b{wait_spin_limit, 4}; serving(atomic_fetch(lock, home)) != ticket;) b.pause();
}

int test_lock(long* lock) {
    long word = atomic_fetch(lock, home);
    while (next_ticket(word) == serving(word)) {  // free: take the next ticket, which is served at once
        const long seen =
            atomic_compare_swap(lock, word, static_cast<long>(static_cast<uint64_t>(word) + next_ticket_one), home);
        if (seen == word) return 0;
        word = seen;
    }
    return 1;
}

void clear_lock(long* lock) {
    quiet();
    long word = atomic_fetch(lock, home);
    for (;;) {
        if (next_ticket(word) == serving(word))
            fatal("ishmemx_clear_lock", "the lock at %p is not held by any PE", static_cast<void*>(lock));
        const uint64_t high = static_cast<uint64_t>(word) & ~uint64_t{0xffffffff};
        const long released = static_cast<long>(high | static_cast<uint32_t>(serving(word) + 1));
        const long seen = atomic_compare_swap(lock, word, released, home);
        if (seen == word) return;
        word = seen;  // another PE drew a ticket meanwhile
    }
}

}  // namespace ishmemi::impl

// barrier_all and sync_all (+ work_group), and the polling helpers that every wait loop uses.
#pragma once

#include <sched.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ishmem/impl/runtime.h"
#include "ishmem/impl/transport.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// What a blocking call is doing, for the hang watchdog (ISHMEM_HANG_TIMEOUT) and the collective
// checks (ISHMEM_CHECK=full), both in checks.cpp. Blocking routines fill one only when watch_calls
// is set, so the default path pays one predictable branch per call.
struct call_info {
    const char* routine;
    int team, root, cmp;     // -1: not an argument of the call
    uint64_t nelems;         // UINT64_MAX: none
    bool nelems_may_differ;  // collect: each PE passes its own
    const void* addr;        // point-to-point waits: the variable(s) waited on
    const char* addr_name;
    uint64_t value_bits;  // the comparison value, read as value_kind says
    char value_kind;      // 'i', 'u', 'f', or 0 when there is none (or one per element)
    unsigned elem_size;
    const char* type;
    const char* args;  // other arguments every member must pass alike, as text, or null
    // kept by checks.cpp while the call runs
    const char* typed;  // the typed entry point the user called, when known
    bool nested, published, polled;
    int agree_for;  // agreement: the PE whose record this PE waits for, or -1
    uint64_t agree_seq, since_ns, next_cycle_check_ns;
};
// ISHMEM_CHECK=full or ISHMEM_HANG_TIMEOUT > 0: blocking calls say what they are doing.
extern ISHMEM_API bool watch_calls;
ISHMEM_API void call_enter(call_info& ci);
ISHMEM_API void call_leave(call_info& ci);
// The yielding phase of a watched wait: publishes the call, watches the clock, looks for wait cycles.
ISHMEM_API void watch_tick();
// A test (not a wait) returned: a run of false results on one variable is timed like a wait.
ISHMEM_API void watch_test(const call_info& ci, bool satisfied);

struct call_scope {
    call_info& ci;
    explicit call_scope(call_info& c) : ci(c) { call_enter(c); }
    ~call_scope() { call_leave(ci); }
    call_scope(const call_scope&) = delete;
    call_scope& operator=(const call_scope&) = delete;
};

// The name of an element type in messages ("int", "long", ...), as the typed routines spell it.
template <class T> constexpr const char* type_name() {
    if constexpr (std::is_same_v<T, char>)
        return "char";
    else if constexpr (std::is_same_v<T, signed char>)
        return "schar";
    else if constexpr (std::is_same_v<T, unsigned char>)
        return "uchar";
    else if constexpr (std::is_same_v<T, short>)
        return "short";
    else if constexpr (std::is_same_v<T, unsigned short>)
        return "ushort";
    else if constexpr (std::is_same_v<T, int>)
        return "int";
    else if constexpr (std::is_same_v<T, unsigned int>)
        return "uint";
    else if constexpr (std::is_same_v<T, long>)
        return "long";
    else if constexpr (std::is_same_v<T, unsigned long>)
        return "ulong";
    else if constexpr (std::is_same_v<T, long long>)
        return "longlong";
    else if constexpr (std::is_same_v<T, unsigned long long>)
        return "ulonglong";
    else if constexpr (std::is_same_v<T, float>)
        return "float";
    else if constexpr (std::is_same_v<T, double>)
        return "double";
    else if constexpr (std::is_same_v<T, long double>)
        return "longdouble";
    else
        return "bytes";
}

// Polling with backoff: `limit` polls, each followed by 2^min(poll, max_shift) CPU pauses, then one
// sched_yield per poll, so that more PEs than cores still make progress. Barriers use the growing
// pauses (spin_limit, ISHMEM_BARRIER_SPINS); point-to-point waits one pause per poll
// (wait_spin_limit, ISHMEM_WAIT_SPINS), so that a waiter reacts within a pause of the update.
struct backoff {
    unsigned limit = spin_limit;
    unsigned max_shift = 4;
    unsigned polls = 0;
    // Returns true once the loop has started yielding (slow path: a good time for liveness checks).
    bool pause() {
        if (__builtin_expect(remote != nullptr, 0)) remote->progress();  // PEs of other nodes may need us
        if (polls < limit) {
            for (unsigned i = 0, n = 1u << (polls < max_shift ? polls : max_shift); i < n; ++i) cpu_relax();
            ++polls;
            return false;
        }
        if (__builtin_expect(watch_calls, 0)) watch_tick();
        sched_yield();
        return true;
    }
};

// A set of barrier counters in the internal region of every member PE. Counters only grow, so
// consecutive barriers need no reset; a slot must be all zeros on every member before its first use.
struct barrier_slot {
    static constexpr int max_rounds = 32;
    struct alignas(64) counter {
        uint64_t value;
    };
    counter epoch;                // barriers this PE has completed on the slot (only its owner uses it)
    counter arrived[max_rounds];  // arrived[r]: barriers for which the round-r partner has signalled
};

// Dissemination barrier over the PEs start, start + stride, ..., (size of them, me among them at
// index my_index), using the barrier_slot at slot_offset in every member's internal region. Called
// by one thread per PE at a time. No memory ordering beyond acquire/release of the flags: callers
// that need completion of earlier operations call quiet first. routine names the caller in errors.
ISHMEM_API void barrier_pes(int start, int stride, int size, int my_index, size_t slot_offset, const char* routine);

// Waits (backing off like a barrier) until *word >= target. partner: the PE expected to raise it,
// whose leaving the job turns the wait into an error; negative for none.
ISHMEM_API void wait_at_least(uint64_t* word, uint64_t target, int partner, const char* routine);

namespace impl {

// Quiet, then wait for every PE. One thread per PE at a time.
ISHMEM_API void barrier_all();
// The same on behalf of routine (ishmem_malloc, ishmem_free, ...): the name the checks report.
ISHMEM_API void barrier_all(const char* routine);
// Wait for every PE; orders this PE's stores before the others' later loads. One thread per PE at a time.
ISHMEM_API void sync_all();

template <typename Group> void barrier_all_work_group(const Group& group) {
    group_sync(group);
    if (group_rank(group) == 0) barrier_all();
    group_sync(group);
}

template <typename Group> void sync_all_work_group(const Group& group) {
    group_sync(group);
    if (group_rank(group) == 0) sync_all();
    group_sync(group);
}

}  // namespace impl
}  // namespace ishmemi

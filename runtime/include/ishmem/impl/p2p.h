// Point-to-point synchronization: wait_until, test and their set forms (_all, _any, _some, with one
// comparison value or one per element), signal_wait_until and the ishmemx_wait extension.
//
// Every read of a variable is an acquire load, so a routine that reports a variable as satisfied
// also makes visible what its writer ordered before the satisfying write (a put_signal's data, puts
// before a fence, ...). Every blocking loop goes through `backoff`, which ends in sched_yield, so
// that more PEs than cores still make progress.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ishmem/generated/constants.h"
#include "ishmem/impl/amo.h"
#include "ishmem/impl/sync.h"
#include "ishmem/impl/work_group.h"

namespace ishmemi {

// cmp is one of ISHMEM_CMP_* (the entry points check it before calling in). Host and device code
// (the CUDA backend's waits use it too).
template <class T> ISHMEM_HD inline bool compare(int cmp, T value, T cmp_value) {
    switch (cmp) {
        case ISHMEM_CMP_EQ:
            return value == cmp_value;
        case ISHMEM_CMP_NE:
            return value != cmp_value;
        case ISHMEM_CMP_GT:
            return value > cmp_value;
        case ISHMEM_CMP_GE:
            return value >= cmp_value;
        case ISHMEM_CMP_LT:
            return value < cmp_value;
        case ISHMEM_CMP_LE:
            return value <= cmp_value;
        default:
            return false;
    }
}

// Calls f with a function object for cmp, so that loops over many elements compare without a switch.
template <class F> inline std::size_t with_operator(int cmp, F&& f) {
    switch (cmp) {
        case ISHMEM_CMP_EQ:
            return f([](auto a, auto b) { return a == b; });
        case ISHMEM_CMP_NE:
            return f([](auto a, auto b) { return a != b; });
        case ISHMEM_CMP_GT:
            return f([](auto a, auto b) { return a > b; });
        case ISHMEM_CMP_GE:
            return f([](auto a, auto b) { return a >= b; });
        case ISHMEM_CMP_LT:
            return f([](auto a, auto b) { return a < b; });
        default:
            return f([](auto a, auto b) { return a <= b; });
    }
}

template <class T> inline T load_acquire(const T* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

// An acquire load of a variable in the user heap: through the GPU when the heap is GPU memory.
template <class T> inline T load_var(const T* p) {
    if (heap_on_gpu()) return gpu_rmw(op_load, const_cast<T*>(p));
    return load_acquire(p);
}

// Where the next _any scan of a set starts: just after the index the last one on the same set
// returned, so that an element that stays satisfied is reported within nelems calls however many
// others are satisfied too. Kept per PE (not per thread: the leader of a work-group may be another
// thread each time) in a small table hashed by the set's address and the routine (test or wait),
// so that a series of test_any calls stays fair while wait_until_any calls on the same set
// interleave with it. Sets that collide in the table share a start, which costs no correctness.
inline std::atomic<std::size_t>& any_scan_start(const void* ivars, bool blocking) {
    const uint64_t h = (reinterpret_cast<uintptr_t>(ivars) * 2 + (blocking ? 1 : 0)) * 0x9E3779B97F4A7C15ull;
    return any_scan_table[h >> (64 - any_scan_table_bits)];
}

// The comparison value of element i: one for all, or one per element (_vector forms).
template <class T> struct same_value {
    T value;
    T operator()(std::size_t) const { return value; }
};
template <class T> struct value_per_element {
    const T* values;
    T operator()(std::size_t i) const { return values[i]; }
};

// A wait or test set: the elements of ivars that status leaves in, each with its comparison value.
template <class T, class Values> struct sync_set {
    T* ivars;
    std::size_t nelems;
    const int* status;  // nonzero entry: element left out; null: all in
    int cmp;
    Values value_of;

    bool in_set(std::size_t i) const { return status == nullptr || status[i] == 0; }
    bool satisfied(std::size_t i) const { return compare(cmp, load_var(ivars + i), value_of(i)); }
    bool empty() const {
        for (std::size_t i = 0; i < nelems; ++i)
            if (in_set(i)) return false;
        return true;
    }

    // Blocks until every element of the set in [begin, end) is satisfied (checked one at a time).
    void wait_all(std::size_t begin, std::size_t end) const {
        for (std::size_t i = begin; i < end; ++i) {
            if (!in_set(i)) continue;
            for (backoff b{wait_spin_limit, 0}; !satisfied(i);) b.pause();
        }
    }
    int test_all() const {
        for (std::size_t i = 0; i < nelems; ++i)
            if (in_set(i) && !satisfied(i)) return 0;
        return 1;
    }
    // The first element of the set in [from, to) that satisfies op, or `to`. Relaxed loads with
    // the operator and the mask test hoisted out of the loop (a scan over thousands of variables
    // is the cost of _any); the caller's acquire fence makes a hit an acquire.
    template <class Op> std::size_t find(std::size_t from, std::size_t to, Op op) const {
        if (heap_on_gpu()) {  // one GPU read per element: the host cannot load GPU memory itself
            for (std::size_t i = from; i < to; ++i)
                if (in_set(i) && op(load_var(ivars + i), value_of(i))) return i;
            return to;
        }
        if (status == nullptr) {
            for (std::size_t i = from; i < to; ++i)
                if (op(__atomic_load_n(ivars + i, __ATOMIC_RELAXED), value_of(i))) return i;
        } else {
            for (std::size_t i = from; i < to; ++i)
                if (status[i] == 0 && op(__atomic_load_n(ivars + i, __ATOMIC_RELAXED), value_of(i))) return i;
        }
        return to;
    }
    std::size_t find_from(std::size_t start) const {
        return with_operator(cmp, [&](auto op) {
            std::size_t i = find(start, nelems, op);
            if (i == nelems && (i = find(0, start, op)) == start) return SIZE_MAX;
            return i;
        });
    }
    std::size_t test_any(bool blocking = false) const {
        if (nelems == 0) return SIZE_MAX;
        std::atomic<std::size_t>& start = any_scan_start(ivars, blocking);
        const std::size_t i = find_from(start.load(std::memory_order_relaxed) % nelems);
        if (i == SIZE_MAX) return SIZE_MAX;
        std::atomic_thread_fence(std::memory_order_acquire);
        start.store(i + 1, std::memory_order_relaxed);
        return i;
    }
    std::size_t test_some(std::size_t* indices) const {
        std::size_t count = 0;
        for (std::size_t i = 0; i < nelems; ++i)
            if (in_set(i) && satisfied(i)) indices[count++] = i;
        return count;
    }
    std::size_t wait_any() const {
        if (empty()) return SIZE_MAX;
        for (backoff b{wait_spin_limit, 0};; b.pause())
            if (std::size_t i = test_any(true); i != SIZE_MAX) return i;
    }
    std::size_t wait_some(std::size_t* indices) const {
        if (empty()) return 0;
        for (backoff b{wait_spin_limit, 0};; b.pause())
            if (std::size_t n = test_some(indices); n != 0) return n;
    }
};

template <class T> sync_set<T, same_value<T>> make_set(T* ivars, std::size_t nelems, const int* status, int cmp, T v) {
    return {ivars, nelems, status, cmp, same_value<T>{v}};
}
template <class T>
sync_set<T, value_per_element<T>> make_set(T* ivars, std::size_t nelems, const int* status, int cmp, const T* v) {
    return {ivars, nelems, status, cmp, value_per_element<T>{v}};
}

// A point-to-point wait or test as the watch describes it (call_info); v is the comparison value,
// or the per-element values (a pointer, not shown).
template <class T, class V> inline call_info p2p_call(const char* routine, const void* addr, const char* addr_name,
                                                      uint64_t nelems, int cmp, const V& v) {
    call_info ci{};
    ci.routine = routine;
    ci.team = ci.root = -1;
    ci.cmp = cmp;
    ci.nelems = nelems;
    ci.addr = addr;
    ci.addr_name = addr_name;
    ci.elem_size = sizeof(T);
    ci.type = type_name<T>();
    if constexpr (!std::is_pointer_v<V> && std::is_floating_point_v<T>) {
        const double d = static_cast<double>(v);
        __builtin_memcpy(&ci.value_bits, &d, sizeof d);
        ci.value_kind = 'f';
    } else if constexpr (!std::is_pointer_v<V> && std::is_integral_v<T>) {
        ci.value_bits = static_cast<uint64_t>(v);
        ci.value_kind = std::is_signed_v<T> ? 'i' : 'u';
    }
    return ci;
}

// Runs wait (a blocking loop) as a watched call when watch_calls is set. The waits and tests below
// are inlined into the library's entry points, so that a watched call's entry point stays on the
// stack (not a tail call) while it blocks: the watchdog reads its name from there (checks.cpp).
template <class T, class V, class F>
[[gnu::always_inline]] inline auto watched_wait(const char* routine, const void* addr, const char* addr_name,
                                                uint64_t nelems, int cmp, const V& v, F&& wait) {
    if (__builtin_expect(!watch_calls, 1)) return wait();
    call_info ci = p2p_call<T>(routine, addr, addr_name, nelems, cmp, v);
    call_scope scope(ci);
    return wait();
}

// A test that the user calls in a loop is a wait too: the watch times the run of false results, and
// an unsatisfied test serves other nodes' requests (their puts and atomics may be what it waits for).
template <class T, class V, class R>
[[gnu::always_inline]] inline R watched_test(const char* routine, const void* addr, const char* addr_name,
                                             uint64_t nelems, int cmp, const V& v, R result, bool satisfied) {
    if (__builtin_expect(remote != nullptr && !satisfied, 0)) remote->progress();
    if (__builtin_expect(watch_calls, 0)) {
        call_info ci = p2p_call<T>(routine, addr, addr_name, nelems, cmp, v);
        watch_test(ci, satisfied);
    }
    return result;
}

namespace impl {

// ---- one variable ------------------------------------------------------------------------------

template <class T> [[gnu::always_inline]] inline void wait_until(T* ivar, int cmp, T cmp_value) {
    watched_wait<T>("ishmem_wait_until", ivar, "ivar", UINT64_MAX, cmp, cmp_value, [&] {
        for (backoff b{wait_spin_limit, 0}; !compare(cmp, load_var(ivar), cmp_value);) b.pause();
    });
}
template <class T> [[gnu::always_inline]] inline int test(T* ivar, int cmp, T cmp_value) {
    const int r = compare(cmp, load_var(ivar), cmp_value) ? 1 : 0;
    return watched_test<T>("ishmem_test", ivar, "ivar", UINT64_MAX, cmp, cmp_value, r, r != 0);
}
template <class T> void wait(T* ivar, T cmp_value) { wait_until(ivar, ISHMEM_CMP_NE, cmp_value); }

[[gnu::always_inline]] inline uint64_t signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
    return watched_wait<uint64_t>("ishmem_signal_wait_until", sig_addr, "sig_addr", UINT64_MAX, cmp, cmp_value,
                                  [&]() -> uint64_t {
                                      for (backoff b{wait_spin_limit, 0};; b.pause())
                                          if (uint64_t v = load_var(sig_addr); compare(cmp, v, cmp_value)) return v;
                                  });
}

// ---- sets: V is TYPE (one value for all) or const TYPE* (the _vector families, whose spec entries
// name these templates as their impl) ----------------------------------------------------------

template <class T, class V>
[[gnu::always_inline]] inline void wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, V v) {
    watched_wait<T>(std::is_pointer_v<V> ? "ishmem_wait_until_all_vector" : "ishmem_wait_until_all", ivars, "ivars",
                    nelems, cmp, v, [&] { make_set(ivars, nelems, status, cmp, v).wait_all(0, nelems); });
}
template <class T, class V>
[[gnu::always_inline]] inline size_t wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, V v) {
    return watched_wait<T>(std::is_pointer_v<V> ? "ishmem_wait_until_any_vector" : "ishmem_wait_until_any", ivars,
                           "ivars", nelems, cmp, v, [&] { return make_set(ivars, nelems, status, cmp, v).wait_any(); });
}
template <class T, class V> [[gnu::always_inline]] inline size_t wait_until_some(T* ivars, size_t nelems,
                                                                                 size_t* indices, const int* status,
                                                                                 int cmp, V v) {
    return watched_wait<T>(std::is_pointer_v<V> ? "ishmem_wait_until_some_vector" : "ishmem_wait_until_some", ivars,
                           "ivars", nelems, cmp, v,
                           [&] { return make_set(ivars, nelems, status, cmp, v).wait_some(indices); });
}
template <class T, class V>
[[gnu::always_inline]] inline int test_all(T* ivars, size_t nelems, const int* status, int cmp, V v) {
    const int r = make_set(ivars, nelems, status, cmp, v).test_all();
    return watched_test<T>("ishmem_test_all", ivars, "ivars", nelems, cmp, v, r, r != 0);
}
template <class T, class V>
[[gnu::always_inline]] inline size_t test_any(T* ivars, size_t nelems, const int* status, int cmp, V v) {
    const size_t r = make_set(ivars, nelems, status, cmp, v).test_any();
    return watched_test<T>("ishmem_test_any", ivars, "ivars", nelems, cmp, v, r, r != SIZE_MAX || nelems == 0);
}
template <class T, class V> [[gnu::always_inline]] inline size_t test_some(T* ivars, size_t nelems, size_t* indices,
                                                                           const int* status, int cmp, V v) {
    const size_t r = make_set(ivars, nelems, status, cmp, v).test_some(indices);
    return watched_test<T>("ishmem_test_some", ivars, "ivars", nelems, cmp, v, r, r != 0 || nelems == 0);
}

// ---- _work_group: one thread polls, the group's barrier hands its acquire to the others; a
// result is broadcast so that every thread returns the same. wait_until_all splits the set. -----

template <class Group, class F> auto leader_then_share(const Group& group, F&& f) {
    using R = decltype(f());
    if constexpr (std::is_void_v<R>) {
        if (group_rank(group) == 0) f();
        group_sync(group);
    } else {
        R r{};
        if (group_rank(group) == 0) r = f();
        return group_broadcast_from_leader(group, r);
    }
}

template <class T, class Group> void wait_until_work_group(T* ivar, int cmp, T v, const Group& group) {
    leader_then_share(group, [&] { wait_until<T>(ivar, cmp, v); });
}
template <class T, class Group> int test_work_group(T* ivar, int cmp, T v, const Group& group) {
    return leader_then_share(group, [&] { return test<T>(ivar, cmp, v); });
}
template <class T, class Group> void wait_work_group(T* ivar, T v, const Group& group) {
    leader_then_share(group, [&] { wait<T>(ivar, v); });
}
template <class Group>
uint64_t signal_wait_until_work_group(uint64_t* sig_addr, int cmp, uint64_t v, const Group& group) {
    return leader_then_share(group, [&] { return signal_wait_until(sig_addr, cmp, v); });
}

template <class T, class V, class Group>
void wait_until_all_work_group(T* ivars, size_t nelems, const int* status, int cmp, V v, const Group& group) {
    const auto [begin, end] = group_chunk(group, nelems);
    watched_wait<T>("ishmemx_wait_until_all_work_group", ivars, "ivars", nelems, cmp, v,
                    [&] { make_set(ivars, nelems, status, cmp, v).wait_all(begin, end); });
    group_sync(group);
}
template <class T, class V, class Group>
size_t wait_until_any_work_group(T* ivars, size_t nelems, const int* status, int cmp, V v, const Group& group) {
    return leader_then_share(group, [&] { return wait_until_any<T>(ivars, nelems, status, cmp, v); });
}
template <class T, class V, class Group> size_t wait_until_some_work_group(T* ivars, size_t nelems, size_t* indices,
                                                                           const int* status, int cmp, V v,
                                                                           const Group& group) {
    return leader_then_share(group, [&] { return wait_until_some<T>(ivars, nelems, indices, status, cmp, v); });
}
template <class T, class V, class Group>
int test_all_work_group(T* ivars, size_t nelems, const int* status, int cmp, V v, const Group& group) {
    return leader_then_share(group, [&] { return test_all<T>(ivars, nelems, status, cmp, v); });
}
template <class T, class V, class Group>
size_t test_any_work_group(T* ivars, size_t nelems, const int* status, int cmp, V v, const Group& group) {
    return leader_then_share(group, [&] { return test_any<T>(ivars, nelems, status, cmp, v); });
}
template <class T, class V, class Group> size_t test_some_work_group(T* ivars, size_t nelems, size_t* indices,
                                                                     const int* status, int cmp, V v,
                                                                     const Group& group) {
    return leader_then_share(group, [&] { return test_some<T>(ivars, nelems, indices, status, cmp, v); });
}

}  // namespace impl
}  // namespace ishmemi

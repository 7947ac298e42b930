// Helpers shared by the patterns (tests/patterns/*.h).
//
// Every pattern runs on every PE of the job, and the PEs must call the collectives (barrier, malloc,
// free) in the same order: so patterns check with EXPECT_* (which never returns early), and return
// early only where every PE takes the same branch (an allocation failure is the same on all PEs).
//
// The patterns also run where symmetric memory is GPU memory and where adapters call the entry point
// inside a GPU kernel (tests/gpu installs the hooks below). So, in every pattern:
//  - the host touches symmetric memory only through the sym_* helpers (sym_load, sym_store,
//    sym_read, sym_write, sym_fill, and sym_array's load, store, read, write, fill), never by
//    dereferencing it; ishmem_* host calls on symmetric addresses are fine (the library reaches it);
//  - every buffer whose address a pattern hands to an adapter (sources, destinations, status masks,
//    comparison values, index and fetch outputs) is a local_vector, which a kernel can reach.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/harness.h"
#include "ishmem.h"
#include "patterns/values.h"

namespace ishmem_testing::patterns {

// How long a PE waits for a word that another PE updates before the test fails: 5 s, or
// ISHMEM_TEST_WAIT_MS. The multi-node ctests raise it: there every remote update is an MPI message
// over TCP between fake nodes that share 2 cores with all their PEs, and one update can take seconds.
inline int read_wait_timeout_ms() {
    const char* s = std::getenv("ISHMEM_TEST_WAIT_MS");
    char* end = nullptr;
    const long v = s && *s ? std::strtol(s, &end, 10) : 0;
    return s && *s && *end == '\0' && v > 0 && v <= 3600000 ? static_cast<int>(v) : 5000;
}
inline const int wait_timeout_ms = read_wait_timeout_ms();

struct world {
    int me = ishmem_my_pe();
    int n = ishmem_n_pes();
    int right = (me + 1) % n;     // where this PE sends
    int left = (me - 1 + n) % n;  // who sends to this PE
};

inline std::string on_pe(int pe) { return "PE " + std::to_string(pe); }

// ---- host access to symmetric memory ------------------------------------------------------------

// How the host reads and writes symmetric memory. Null hooks (the default): direct access (host backend).
// A GPU test binary installs copies through the GPU (cudaMemcpy) before running the patterns.
struct sym_memory_hooks {
    void (*read)(void* dst, const void* sym, std::size_t bytes) = nullptr;
    void (*write)(void* sym, const void* src, std::size_t bytes) = nullptr;
};
inline sym_memory_hooks sym_hooks;  // set once, before any test runs

namespace sym_detail {
// Words that other PEs update with atomics are polled, so the host accesses single elements
// atomically; the 128-bit struct has no lock-free atomic_ref and is copied (nothing polls it).
template <class T> inline constexpr bool host_atomic_v = std::is_scalar_v<T>;
}  // namespace sym_detail

// Element *p of symmetric memory: an acquire load on the host backend.
template <class T> T sym_load(const T* p) {
    if (sym_hooks.read) {
        T v;
        sym_hooks.read(&v, p, sizeof v);
        return v;
    }
    if constexpr (sym_detail::host_atomic_v<T>) {
        // atomic_ref<const T> is not C++20; the load does not write.
        return std::atomic_ref<T>(*const_cast<T*>(p)).load(std::memory_order_acquire);
    } else {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
}

// *p = v in symmetric memory: a release store on the host backend.
template <class T> void sym_store(T* p, const T& v) {
    if (sym_hooks.write) {
        sym_hooks.write(p, &v, sizeof v);
    } else if constexpr (sym_detail::host_atomic_v<T>) {
        std::atomic_ref<T>(*p).store(v, std::memory_order_release);
    } else {
        std::memcpy(static_cast<void*>(p), &v, sizeof v);
    }
}

// A host copy of count elements of symmetric memory from p (for checks made after a barrier or a
// wait, when nobody writes them any more).
template <class T> std::vector<T> sym_read(const T* p, std::size_t count) {
    std::vector<T> v(count);
    if (count == 0) return v;
    if (sym_hooks.read)
        sym_hooks.read(v.data(), p, count * sizeof(T));
    else
        std::memcpy(static_cast<void*>(v.data()), p, count * sizeof(T));
    return v;
}

// Copies count host elements from src to symmetric memory at p.
template <class T> void sym_write(T* p, const T* src, std::size_t count) {
    if (count == 0) return;
    if (sym_hooks.write)
        sym_hooks.write(p, src, count * sizeof(T));
    else
        std::memcpy(static_cast<void*>(p), src, count * sizeof(T));
}

// Sets count elements of symmetric memory at p to v.
template <class T> void sym_fill(T* p, std::size_t count, const T& v) {
    const std::vector<T> values(count, v);
    sym_write(p, values.data(), count);
}

// A zero-filled symmetric array of n elements, freed when it goes out of scope (ishmem_free is
// collective: all PEs leave the scope in the same order). At least one element is allocated.
// get() (and get() + i) is the address to hand to the API; the host reads and writes the elements
// with load, store, read, write and fill.
template <class T> class sym_array {
  public:
    explicit sym_array(std::size_t n) : n_(n ? n : 1), p_(static_cast<T*>(ishmem_calloc(n_, sizeof(T)))) {}
    ~sym_array() { ishmem_free(p_); }
    sym_array(const sym_array&) = delete;
    sym_array& operator=(const sym_array&) = delete;
    T* get() const { return p_; }
    explicit operator bool() const { return p_ != nullptr; }

    T load(std::size_t i) const { return sym_load(p_ + i); }
    void store(std::size_t i, const T& v) const { sym_store(p_ + i, v); }
    std::vector<T> read(std::size_t first, std::size_t count) const { return sym_read(p_ + first, count); }
    template <class A> void write(std::size_t first, const std::vector<T, A>& v) const {
        sym_write(p_ + first, v.data(), v.size());
    }
    void fill(const T& v) const { sym_fill(p_, n_, v); }

    // For hand-written host tests (tests/*.cpp) only, never in a pattern: a host reference into
    // symmetric memory, which exists only where the host can address it.
    T& operator[](std::size_t i) const {
        if (sym_hooks.read) {
            std::fprintf(stderr,
                         "sym_array::operator[]: symmetric memory is not host-addressable here; use load/store\n");
            std::abort();
        }
        return p_[i];
    }

  private:
    std::size_t n_;  // elements allocated
    T* p_;
};

// Atomic (acquire) read of a word that other PEs update, for hand-written host tests (tests/*.cpp);
// patterns use sym_load.
template <class T> T load_acquire(T* p) { return std::atomic_ref<T>(*p).load(std::memory_order_acquire); }

// ---- local buffers handed to adapters -----------------------------------------------------------

// How local buffers handed to adapters are allocated. Null: operator new. A GPU test binary installs
// pinned host memory (cudaMallocHost), which kernels reach by address.
struct local_memory_hooks {
    void* (*alloc)(std::size_t bytes) = nullptr;
    void (*free)(void* p) = nullptr;
};
inline local_memory_hooks local_hooks;  // set once, before any test runs

template <class T> struct local_allocator {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "local_allocator: over-aligned element type");
    using value_type = T;
    local_allocator() = default;
    template <class U> local_allocator(const local_allocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        void* p = local_hooks.alloc ? local_hooks.alloc(n * sizeof(T)) : ::operator new(n * sizeof(T));
        if (!p) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) noexcept {
        if (local_hooks.free)
            local_hooks.free(p);
        else
            ::operator delete(p);
    }
    template <class U> bool operator==(const local_allocator<U>&) const noexcept { return true; }
};

// A buffer whose address a pattern hands to an adapter.
template <class T> using local_vector = std::vector<T, local_allocator<T>>;

// ---- values, waits and checks -------------------------------------------------------------------

// count values of PE pe, element i being make_value<T>(pe, first + i). Vector: std::vector<T> for
// the host's own use (writing symmetric memory, the host API), local_vector<T> for an adapter.
template <class T, class Vector = std::vector<T>> Vector pe_values(int pe, std::size_t count, std::size_t first = 0) {
    Vector v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = make_value<T>(pe, first + i);
    return v;
}

// Polls until *word == expected; fails the test (without hanging) after timeout_ms.
template <class T>
bool wait_equal(const T* word, T expected, const std::string& what, int timeout_ms = wait_timeout_ms) {
    const bool ok = ishmem_testing::wait_for([&] { return sym_load(word) == expected; }, timeout_ms, what);
    if (!ok) ADD_FAILURE() << what << ": last value " << show(sym_load(word)) << ", expected " << show(expected);
    return ok;
}

// Checks got[i] == expected(i) for i < n; reports how many differ and the first one (not each).
template <class T, class Expected>
bool expect_elements(const T* got, std::size_t n, Expected&& expected, const std::string& what) {
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (!equal(got[i], static_cast<T>(expected(i))) && bad++ == 0) first = i;
    if (bad)
        ADD_FAILURE() << what << ": " << bad << " of " << n << " elements wrong; first at [" << first << "]: got "
                      << show(got[first]) << ", expected " << show(static_cast<T>(expected(first)));
    return bad == 0;
}

// Checks that got[i] holds the sentinel for i < n (memory the operation must not touch).
template <class T> bool expect_untouched(const T* got, std::size_t n, const std::string& what) {
    return expect_elements(
        got, n, [](std::size_t) { return sentinel<T>(); }, what + " (must be untouched)");
}

// The same checks over all of a host copy, such as sym_array::read returns.
template <class T, class A, class Expected>
bool expect_elements(const std::vector<T, A>& got, Expected&& expected, const std::string& what) {
    return expect_elements(got.data(), got.size(), std::forward<Expected>(expected), what);
}
template <class T, class A> bool expect_untouched(const std::vector<T, A>& got, const std::string& what) {
    return expect_untouched(got.data(), got.size(), what);
}

// Every PE contributes mine (the same size on every PE); returns the n * mine.size() values,
// PE 0's first. Uses putmem + barrier; collective.
template <class T> std::vector<T> allgather(const std::vector<T>& mine) {
    const world w;
    const std::size_t k = mine.size();
    sym_array<T> buf(k * w.n);
    if (!buf) {
        ADD_FAILURE() << "allgather: ishmem_calloc failed";
        return std::vector<T>(k * w.n);
    }
    for (int pe = 0; pe < w.n; ++pe) ishmem_putmem(buf.get() + k * w.me, mine.data(), k * sizeof(T), pe);
    ishmem_barrier_all();
    return buf.read(0, k * w.n);  // buf's ishmem_free waits for every PE to have copied
}

// Checks that a set of atomic read-modify-writes on one word can be put in one order: starting
// from init, each op (returned old value, operand) returned the value the previous ones left,
// and after all of them the word holds final_value. Needs ops whose old values are all distinct
// (strictly increasing adds, disjoint bit masks, distinct swapped values).
template <class T, class Apply> void expect_linearizable(T init, const std::vector<std::pair<T, T>>& ops, T final_value,
                                                         Apply apply, const std::string& what) {
    std::vector<bool> used(ops.size(), false);
    T cur = init;
    for (std::size_t step = 0; step < ops.size(); ++step) {
        std::size_t j = 0;
        while (j < ops.size() && (used[j] || !equal(ops[j].first, cur))) ++j;
        if (j == ops.size()) {
            std::string returned;
            for (const auto& op : ops) returned += " " + show(op.first);
            ADD_FAILURE() << what << ": after " << step << " of " << ops.size() << " operations the word should hold "
                          << show(cur) << ", but no remaining operation returned it; returned values:" << returned;
            return;
        }
        used[j] = true;
        cur = apply(cur, ops[j].second);
    }
    EXPECT_TRUE(equal(cur, final_value)) << what << ": final value " << show(final_value) << ", expected " << show(cur);
}

}  // namespace ishmem_testing::patterns

// Runtime state, argument checks, address translation and error reporting: what every generated
// stub and every operation template needs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ishmem/generated/constants.h"
#include "ishmem/impl/api.h"

namespace ishmemi {

// Where the symmetric heap lives and what runs "device" code (docs/design.rst, 'The backend seam').
enum class backend_kind : int {
    host = 0,  // heap in shared host memory; device code is CPU threads
    cuda = 1,  // heap in GPU memory (one PE per GPU); device code is CUDA kernels
};

struct state_t {
    bool initialized;
    int my_pe;
    int n_pes;
    char* heap_base;   // my mapping of my own heap (user part starts here)
    size_t heap_size;  // user-visible symmetric size (ISHMEM_SYMMETRIC_SIZE)
    char** peer_base;  // peer_base[pe]: my mapping of PE pe's heap (nullptr if unreachable)
    backend_kind backend;
    char** internal_peer;  // internal_peer[pe]: PE pe's internal region (host memory on every backend)
    bool finalized;        // ishmem_finalize has run (and no ishmem_init since): errors say "after finalize"
    // ISHMEM_CHECK=full, read once by ishmem_init: the costly checks (checks.cpp) run only when set.
    // Kept here so that check_symmetric tests it through the pointer to state it already holds.
    bool check_full = false;
    // The executable's data and bss, symmetric on the host backend (globals.cpp): translate() reaches
    // PE pe's copy with the heap's formula. Null and 0 where they are not symmetric.
    char* globals_base = nullptr;
    size_t globals_size = 0;
};
extern ISHMEM_API state_t state;

// Spins (polls with a CPU pause) before a wait loop starts yielding the core (ISHMEM_BARRIER_SPINS).
extern ISHMEM_API unsigned spin_limit;
// Polls of a point-to-point wait before it starts yielding the core (ISHMEM_WAIT_SPINS).
extern ISHMEM_API unsigned wait_spin_limit;
// Start indices of the _any scans (see any_scan_start in p2p.h): 2^any_scan_table_bits slots.
inline constexpr unsigned any_scan_table_bits = 6;
extern ISHMEM_API std::atomic<size_t> any_scan_table[size_t{1} << any_scan_table_bits];

// ---- errors -----------------------------------------------------------------------------------

// One line "ishmem: PE <n>: <routine>: <reason>" on stderr, then _exit(1). "PE ?" before the PE is known.
[[noreturn]] ISHMEM_API void fatal(const char* routine, const char* fmt, ...)
    __attribute__((format(printf, 2, 3), cold));
// One line "ishmem: PE <n>: warning: <routine>: <reason>" on stderr.
ISHMEM_API void warn(const char* routine, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Rewrites a report in place (never longer) as the program spells the API: ishmem_int_put as
// shmem_int_put where the program includes shmem.h. fatal and warn do it themselves; for reports
// that are printed otherwise (full mode's agreement, the watchdog's where-every-PE-is).
ISHMEM_API void spell_as_program(char* text);

// Cold halves of the checks below; they report and stop the job.
[[noreturn, gnu::cold]] ISHMEM_API void fail_init(const char* routine);
[[noreturn, gnu::cold]] ISHMEM_API void fail_pe(const char* routine, int pe);
[[noreturn, gnu::cold]] ISHMEM_API void fail_symmetric(const char* routine, const char* param, const void* addr,
                                                       size_t bytes);
// Full mode: [addr, addr + bytes) must also lie inside one live allocation (stops the job if not).
[[gnu::cold]] ISHMEM_API void check_allocation(const char* routine, const char* param, const void* addr, size_t bytes);
[[noreturn, gnu::cold]] ISHMEM_API void fail_nonnull(const char* routine, const char* param, size_t count);
[[noreturn, gnu::cold]] ISHMEM_API void fail_sig_op(const char* routine, int sig_op);
[[noreturn, gnu::cold]] ISHMEM_API void fail_cmp(const char* routine, int cmp);
[[noreturn, gnu::cold]] ISHMEM_API void fail_power_of_two(const char* routine, const char* param, size_t v);
[[noreturn, gnu::cold]] ISHMEM_API void fail_positive(const char* routine, const char* param, long long v);
[[noreturn, gnu::cold]] ISHMEM_API void fail_aligned(const char* routine, const char* param, const void* addr,
                                                     size_t align);

// ---- checks: an inline branch on the fast path --------------------------------------------------
// Always inlined: in a file of many stubs GCC's inline budget otherwise turns them into calls, which
// costs more than the checks themselves.

[[gnu::always_inline]] inline void check_init(const char* routine) {
    if (__builtin_expect(!state.initialized, 0)) fail_init(routine);
}

[[gnu::always_inline]] inline void check_pe(const char* routine, int pe) {
    if (__builtin_expect(static_cast<unsigned>(pe) >= static_cast<unsigned>(state.n_pes), 0)) fail_pe(routine, pe);
}

// [addr, addr + bytes) must lie in the user heap or in the executable's symmetric data and bss;
// with bytes == 0 only addr in [base, base + size] of either, or a null addr (an empty range, e.g.
// an empty wait set, may be passed as null). The globals test sits inside the heap test's unlikely
// branch, and that branch calls nothing that returns: the fast path is one predicted branch.
// The bounds alone: the library's generated stubs use this, and run a copy with check_symmetric
// under ISHMEM_CHECK=full (a tail call), so that their default path makes only [[noreturn]] calls.
[[gnu::always_inline]] inline void check_symmetric_bounds(const char* routine, const char* param, const void* addr,
                                                          size_t bytes) {
    uintptr_t off = reinterpret_cast<uintptr_t>(addr) - reinterpret_cast<uintptr_t>(state.heap_base);
    if (__builtin_expect(off > state.heap_size || bytes > state.heap_size - off, 0)) {
        uintptr_t goff = reinterpret_cast<uintptr_t>(addr) - reinterpret_cast<uintptr_t>(state.globals_base);
        if ((goff > state.globals_size || bytes > state.globals_size - goff) && (bytes != 0 || addr != nullptr))
            fail_symmetric(routine, param, addr, bytes);
    }
}

// The bounds, and under ISHMEM_CHECK=full that the range lies inside one live allocation.
[[gnu::always_inline]] inline void check_symmetric(const char* routine, const char* param, const void* addr,
                                                   size_t bytes) {
    check_symmetric_bounds(routine, param, addr, bytes);
    if (__builtin_expect(state.check_full, 0)) check_allocation(routine, param, addr, bytes);
}

[[gnu::always_inline]] inline void check_nonnull(const char* routine, const char* param, const void* p, size_t count) {
    if (__builtin_expect(p == nullptr && count > 0, 0)) fail_nonnull(routine, param, count);
}

[[gnu::always_inline]] inline void check_sig_op(const char* routine, int sig_op) {
    if (__builtin_expect(sig_op != ISHMEM_SIGNAL_SET && sig_op != ISHMEM_SIGNAL_ADD, 0)) fail_sig_op(routine, sig_op);
}

[[gnu::always_inline]] inline void check_cmp(const char* routine, int cmp) {
    if (__builtin_expect(cmp < ISHMEM_CMP_EQ || cmp > ISHMEM_CMP_LE, 0)) fail_cmp(routine, cmp);
}

[[gnu::always_inline]] inline void check_power_of_two(const char* routine, const char* param, size_t v) {
    if (__builtin_expect(v == 0 || (v & (v - 1)) != 0, 0)) fail_power_of_two(routine, param, v);
}

// Atomics and waits need their element at its natural alignment: a misaligned one works on the CPU
// but faults on a GPU. A mask test; null passes (an empty wait set may be null).
[[gnu::always_inline]] inline void check_aligned(const char* routine, const char* param, const void* addr,
                                                 size_t align) {
    if (__builtin_expect((reinterpret_cast<uintptr_t>(addr) & (align - 1)) != 0, 0))
        fail_aligned(routine, param, addr, align);
}

// Options and hints: value may hold only the bits of allowed. A status check: the message, then false.
[[gnu::cold]] ISHMEM_API bool report_flags(const char* routine, const char* param, long value, long allowed);
[[gnu::always_inline]] inline bool check_flags(const char* routine, const char* param, long value, long allowed) {
    return __builtin_expect((value & ~allowed) == 0, 1) || report_flags(routine, param, value, allowed);
}

// Strides of iput/iget/ibput/ibget are counted in elements and must be at least 1.
[[gnu::always_inline]] inline void check_positive(const char* routine, const char* param, ptrdiff_t v) {
    if (__builtin_expect(v <= 0, 0)) fail_positive(routine, param, v);
}

// Sizes of the argument checks: a * b, or SIZE_MAX where the product overflows size_t. No range
// passes a check with SIZE_MAX bytes, so an nelems too large for its element size gets the usual
// error instead of a copy of the wrapped size (fail_symmetric names the overflow).
[[gnu::always_inline]] inline size_t mul_size(size_t a, size_t b) {
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

// Elements spanned by nelems elements at stride: (nelems - 1) * |stride| + 1, 0 if nelems == 0;
// SIZE_MAX where that overflows.
inline size_t strided_extent(size_t nelems, ptrdiff_t stride) {
    if (nelems == 0) return 0;
    const size_t s = stride < 0 ? size_t{0} - static_cast<size_t>(stride) : static_cast<size_t>(stride);
    const size_t span = mul_size(nelems - 1, s);
    return span == SIZE_MAX ? SIZE_MAX : span + 1;
}

// Elements spanned by nblocks blocks of bsize elements at stride: (nblocks - 1) * |stride| + bsize;
// SIZE_MAX where that overflows.
inline size_t blocked_extent(size_t bsize, size_t nblocks, ptrdiff_t stride) {
    if (nblocks == 0 || bsize == 0) return 0;
    const size_t s = stride < 0 ? size_t{0} - static_cast<size_t>(stride) : static_cast<size_t>(stride);
    const size_t span = mul_size(nblocks - 1, s);
    return span > SIZE_MAX - bsize ? SIZE_MAX : span + bsize;
}

// PE pe's copy of the symmetric object at addr, in my address space. Also for a global: PE pe's
// globals are mapped at the offset from mine at which its heap is mapped from mine (globals.cpp).
inline void* translate(const void* addr, int pe) {
    return state.peer_base[pe] + (static_cast<const char*>(addr) - state.heap_base);
}
template <typename T> inline T* translate(T* addr, int pe) {
    return static_cast<T*>(translate(static_cast<const void*>(addr), pe));
}
template <typename T> inline const T* translate(const T* addr, int pe) {
    return static_cast<const T*>(translate(static_cast<const void*>(addr), pe));
}

// ---- element types of the sized (SIZE) and mem forms -------------------------------------------

struct uint128_t {
    uint64_t lo, hi;
};
static_assert(sizeof(uint128_t) == 16 && std::is_trivially_copyable_v<uint128_t>);

template <int Bits> struct sized;
template <> struct sized<8> { using type = uint8_t; };
template <> struct sized<16> { using type = uint16_t; };
template <> struct sized<32> { using type = uint32_t; };
template <> struct sized<64> { using type = uint64_t; };
template <> struct sized<128> { using type = uint128_t; };
template <int Bits> using sized_t = typename sized<Bits>::type;

// ---- internal region: one per PE, before its user heap, for sync words and scratch -------------

// Layout (offsets from internal_base(pe)); the sizes are part of the heap format shared by all PEs.
inline constexpr size_t internal_control_offset = 0;       // status word, world barrier flags
inline constexpr size_t internal_sync_offset = 64 * 1024;  // sync slots for teams
inline constexpr size_t internal_sync_size = 960 * 1024;
inline constexpr size_t internal_scratch_offset = 1024 * 1024;    // scratch for collectives
inline constexpr size_t internal_scratch_size = 7 * 1024 * 1024;  // mostly eager inboxes (teams.h)
inline constexpr size_t internal_size = internal_scratch_offset + internal_scratch_size;

// PE pe's internal region in my address space. It is host shared memory on every backend, so that
// the host's barriers and flag exchanges poll it with CPU atomics.
inline char* internal_base(int pe) { return state.internal_peer[pe]; }

// True when the user heap is GPU memory: the host then reaches it through the gpu:: calls below.
inline bool heap_on_gpu() { return state.backend == backend_kind::cuda; }

// ---- the host's access to a heap in GPU memory (runtime/cuda/host_ops.cu; a library built
// without CUDA never selects that backend, and its versions stop the job) ----------------------

}  // namespace ishmemi

struct CUstream_st;  // cudaStream_t

namespace ishmemi {

// Read-modify-write codes of the atomics that another agent does for the caller (the GPU on a GPU heap,
// the transport on a PE of another node); integers of 4 or 8 bytes (floats as their bits for load,
// store, swap and compare-and-swap).
enum rmw_op : int { op_load, op_store, op_swap, op_cswap, op_add, op_and, op_or, op_xor };
// The collectives and element types that such an agent runs for the caller.
enum coll_kind : int { coll_alltoall, coll_broadcast, coll_collect, coll_fcollect };
enum elem_kind : int {
    elem_i8,
    elem_i16,
    elem_i32,
    elem_i64,
    elem_u8,
    elem_u16,
    elem_u32,
    elem_u64,
    elem_f32,
    elem_f64
};
template <class T> constexpr elem_kind elem_kind_of() {
    if constexpr (std::is_floating_point_v<T>) {
        static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double");
        return sizeof(T) == 4 ? elem_f32 : elem_f64;
    } else {
        constexpr int log = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
        return static_cast<elem_kind>((std::is_signed_v<T> ? elem_i8 : elem_u8) + log);
    }
}
static_assert(elem_kind_of<signed char>() == elem_i8 && elem_kind_of<unsigned short>() == elem_u16 &&
              elem_kind_of<int>() == elem_i32 && elem_kind_of<long long>() == elem_i64 &&
              elem_kind_of<size_t>() == elem_u64 && elem_kind_of<float>() == elem_f32 &&
              elem_kind_of<double>() == elem_f64 && elem_kind_of<unsigned char>() == elem_u8);
// The other way, elem_kind_of's inverse: calls f with a value of k's type; false when k is no kind.
// The one switch over the kinds (the CUDA collectives' kernels, the MPI transport's datatypes).
template <class F> bool with_elem_kind(elem_kind k, F&& f) {
    switch (k) {
        case elem_i8:
            return f(int8_t{}), true;
        case elem_i16:
            return f(int16_t{}), true;
        case elem_i32:
            return f(int32_t{}), true;
        case elem_i64:
            return f(int64_t{}), true;
        case elem_u8:
            return f(uint8_t{}), true;
        case elem_u16:
            return f(uint16_t{}), true;
        case elem_u32:
            return f(uint32_t{}), true;
        case elem_u64:
            return f(uint64_t{}), true;
        case elem_f32:
            return f(float{}), true;
        case elem_f64:
            return f(double{}), true;
    }
    return false;
}

namespace gpu {
using ishmemi::coll_kind, ishmemi::coll_alltoall, ishmemi::coll_broadcast, ishmemi::coll_collect,
    ishmemi::coll_fcollect;
using ishmemi::elem_kind, ishmemi::elem_kind_of, ishmemi::with_elem_kind, ishmemi::elem_i8, ishmemi::elem_i16,
    ishmemi::elem_i32, ishmemi::elem_i64, ishmemi::elem_u8, ishmemi::elem_u16, ishmemi::elem_u32, ishmemi::elem_u64,
    ishmemi::elem_f32, ishmemi::elem_f64;
using ishmemi::rmw_op, ishmemi::op_load, ishmemi::op_store, ishmemi::op_swap, ishmemi::op_cswap, ishmemi::op_add,
    ishmemi::op_and, ishmemi::op_or, ishmemi::op_xor;
// Copies bytes between any two of: host memory, my GPU heap, a peer's GPU heap (through my mapping
// of it). Returns when the copy is complete.
ISHMEM_API void copy(void* dst, const void* src, size_t bytes);
// Copies n blocks of `block` bytes, block b from src + b * src_pitch to dst + b * dst_pitch.
ISHMEM_API void copy_2d(void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t block, size_t n);
ISHMEM_API void fill_zero(void* dst, size_t bytes);
// Bytes of this PE's GPU mapping from state.heap_base: the user heap, then the GPU sync region and
// the medium stages (what other nodes' requests may land in).
ISHMEM_API size_t heap_span();
// Queues the copy on CUDA stream s and returns at once, true; false with nothing queued when the
// local side (`local`, dst or src) is pageable host memory, for which CUDA would make the calling
// thread wait for the stream.
ISHMEM_API bool copy_async(CUstream_st* s, void* dst, const void* src, size_t bytes, const void* local);
// Queues on s a one-thread kernel that sets (add: adds to) the 64-bit word at p, a GPU address,
// with release order: a PE that sees the new value sees what s copied before.
ISHMEM_API void signal_async(CUstream_st* s, uint64_t* p, uint64_t value, bool add);
// One atomic operation on the word at p (a GPU address, mine or a peer's), done by the GPU so that
// it is atomic against device atomics; returns the old value.
ISHMEM_API uint64_t rmw(rmw_op op, void* p, unsigned size, uint64_t value, uint64_t cond);

// Collectives on a heap in GPU memory, run by the library's cooperative kernels over the team's
// GPU sync slot (runtime/cuda/collectives.cu; the same code as device calls). With a stream s they
// are queued on it and return at once; with s null they run on the calling thread's stream and
// return when complete. The caller has checked the arguments.
ISHMEM_API void collective(coll_kind kind, int team, void* dest, const void* source, size_t bytes, int root,
                           CUstream_st* s);
// Reductions and scans: op as coll::op_kind; scan 0 (reduce), 1 (inclusive) or 2 (exclusive); the
// element type by kind, size and sign (char, long, size_t... map to one of these).
ISHMEM_API void reduction(int op, int scan, elem_kind type, int team, void* dest, const void* source, size_t nelems,
                          CUstream_st* s);
// A device barrier over the team (the GPU sync slot's counters, as barriers in kernels use), by a
// one-thread kernel; s as for collective.
ISHMEM_API void barrier(int team, CUstream_st* s);
}  // namespace gpu

}  // namespace ishmemi

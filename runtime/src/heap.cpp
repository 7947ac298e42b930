// The symmetric heap. Each PE creates an anonymous memfd (nothing appears in /dev/shm), passes it to
// the others through the bootstrap and maps theirs; the fds are closed once mapped, so the memory
// goes away with the last process that maps it. The memfd holds the internal region (sync words,
// scratch) and, on the host backend, the user heap; on a GPU backend the user heap is GPU memory
// that the backend shares the same way (gpu_heap_create).
#include "heap.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "config.h"
#include "globals.h"
#include "ishmem/impl/runtime.h"

namespace ishmemi {

namespace {

const char* const routine = "ishmem_init";

size_t mapping_size = 0;  // internal region + user heap, rounded to pages

// Room for the fds of every PE at once: raise the soft limit towards the hard one when needed.
void ensure_fd_room(int n) {
    rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    rlim_t need = static_cast<rlim_t>(n) + 64;
    if (rl.rlim_cur >= need) return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
}

size_t user_alignment = 0;  // every user heap starts at a multiple of this (see heap_alignment())

// Maps fd so that its user part (after the internal region) starts at a multiple of user_alignment:
// ishmem_align works on offsets, which are the same on every PE, so the bases must be at least as
// aligned as the largest alignment asked for.
char* map_fd(int fd, int pe) {
    const size_t reserve = mapping_size + user_alignment;
    void* r = mmap(nullptr, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        fatal(routine, "cannot reserve %zu bytes of address space for the heap of PE %d: %s", reserve, pe,
              strerror(errno));
    const uintptr_t lo = reinterpret_cast<uintptr_t>(r);
    const uintptr_t user = (lo + internal_size + user_alignment - 1) / user_alignment * user_alignment;
    char* start = reinterpret_cast<char*>(user - internal_size);
    // give back the reservation around the mapping
    if (start > static_cast<char*>(r)) munmap(r, static_cast<size_t>(start - static_cast<char*>(r)));
    const uintptr_t end = reinterpret_cast<uintptr_t>(start) + mapping_size;
    if (end < lo + reserve) munmap(reinterpret_cast<void*>(end), lo + reserve - end);
    void* p = mmap(start, mapping_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED)
        fatal(routine, "cannot map the symmetric heap of PE %d (%zu bytes): %s", pe, mapping_size, strerror(errno));
    // Large copies run faster on huge pages where the kernel allows them for shared memory.
    madvise(p, mapping_size, MADV_HUGEPAGE);
    return static_cast<char*>(p);
}

// Host backend: one reservation holds every PE's heap, mine first and PE (me + k) % n k strides
// after mine. PE p's globals then go k strides after my own globals (globals.cpp): above the
// executable and its brk heap, where nothing else is mapped. Each PE chooses its stride alone:
// only its own mappings depend on it.
char* block = nullptr;
size_t block_size = 0;

void map_host_heaps(const int* fds, int n, int me, size_t min_stride, char** internals) {
    size_t stride = mapping_size > min_stride ? mapping_size : min_stride;
    stride = (stride + user_alignment - 1) / user_alignment * user_alignment;
    if (stride > (SIZE_MAX - internal_size - user_alignment) / static_cast<size_t>(n))
        fatal(routine, "the heaps of %d PEs (%zu bytes apart) do not fit in the address space", n, stride);
    block_size = internal_size + user_alignment + static_cast<size_t>(n) * stride;
    void* r = mmap(nullptr, block_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        fatal(routine, "cannot reserve %zu bytes of address space for the heaps of %d PEs: %s", block_size, n,
              strerror(errno));
    block = static_cast<char*>(r);
    const uintptr_t lo = reinterpret_cast<uintptr_t>(r);
    const uintptr_t user0 = (lo + internal_size + user_alignment - 1) / user_alignment * user_alignment;
    for (int k = 0; k < n; ++k) {
        const int pe = (me + k) % n;
        internals[pe] = nullptr;
        if (fds[pe] < 0) continue;  // a PE of another node
        char* start = reinterpret_cast<char*>(user0 + static_cast<size_t>(k) * stride - internal_size);
        void* p = mmap(start, mapping_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED, fds[pe], 0);
        if (p == MAP_FAILED)
            fatal(routine, "cannot map the symmetric heap of PE %d (%zu bytes): %s", pe, mapping_size, strerror(errno));
        madvise(p, mapping_size, MADV_HUGEPAGE);
        internals[pe] = start;
    }
}

}  // namespace

size_t heap_alignment(size_t user_size) {
    // the smallest power of two that holds the heap, between 2 MiB and 1 GiB
    size_t a = size_t{2} << 20;
    while (a < user_size && a < (size_t{1} << 30)) a <<= 1;
    return a;
}

void heap_create(bootstrap& boot, size_t user_size) {
    const int n = boot.n_pes(), me = boot.pe();
    // Every PE has the same size: ishmem_init compared it (setup.cpp, check_settings_agree).

    // On the host backend one memfd holds the internal region and the user heap; on a GPU backend
    // the memfd holds the internal region only and the user heap is GPU memory (gpu_heap_create).
    const bool user_in_memfd = state.backend == backend_kind::host;
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t in_memfd = user_in_memfd ? user_size : 0;
    if (user_size > SIZE_MAX - internal_size - page - heap_alignment(user_size))
        fatal(routine, "ISHMEM_SYMMETRIC_SIZE=%s is too large", config.symmetric_text);
    mapping_size = (internal_size + in_memfd + page - 1) / page * page;
    user_alignment = user_in_memfd ? heap_alignment(user_size) : page;

    // The executable's data and bss, symmetric on the host backend; the heaps' placement leaves room
    // for them.
    const globals_segment globals = globals_find(boot);

    int fd = memfd_create("ishmem_heap", MFD_CLOEXEC);
    if (fd < 0) fatal(routine, "memfd_create failed: %s", strerror(errno));
    if (ftruncate(fd, static_cast<off_t>(mapping_size)) != 0)
        fatal(routine, "cannot size the symmetric heap to %zu bytes (ISHMEM_SYMMETRIC_SIZE=%s): %s", mapping_size,
              config.symmetric_text, strerror(errno));

    ensure_fd_room(n);
    std::vector<int> fds(n, -1);
    boot.exchange_fds(fd, fds.data(), node_table());

    char** internals = new char*[n];
    if (user_in_memfd) {
        map_host_heaps(fds.data(), n, me, globals_min_stride(globals), internals);
        for (int pe = 0; pe < n; ++pe)
            if (fds[pe] >= 0) close(fds[pe]);
    } else {
        for (int pe = 0; pe < n; ++pe) {
            // A PE of another node has no descriptor here: its internal region is the transport's.
            internals[pe] = fds[pe] >= 0 ? map_fd(fds[pe], pe) : nullptr;
            if (fds[pe] >= 0) close(fds[pe]);
        }
    }
    state.internal_peer = internals;
    state.heap_size = user_size;
    if (user_in_memfd) {
        // peer_base points past the internal region: user offsets are the same on every PE.
        char** bases = new char*[n];
        for (int pe = 0; pe < n; ++pe) bases[pe] = internals[pe] ? internals[pe] + internal_size : nullptr;
        state.peer_base = bases;
        state.heap_base = bases[me];
        globals_share(boot, globals, bases);
    } else {
        gpu_heap_create(boot, user_size, heap_alignment(user_size));
    }
}

void heap_destroy() {
    if (!state.internal_peer) return;
    if (state.backend == backend_kind::host) {
        globals_unshare();
        delete[] state.peer_base;
    } else {
        gpu_heap_destroy();
    }
    if (block) {
        munmap(block, block_size);
        block = nullptr;
    } else {
        for (int pe = 0; pe < state.n_pes; ++pe)
            if (state.internal_peer[pe]) munmap(state.internal_peer[pe], mapping_size);
    }
    delete[] state.internal_peer;
    state.internal_peer = nullptr;
    state.peer_base = nullptr;
    state.heap_base = nullptr;
    state.heap_size = 0;
}

}  // namespace ishmemi

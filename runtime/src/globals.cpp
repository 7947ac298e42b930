// Global and static variables of the executable as symmetric memory (host backend).
//
// OpenSHMEM programs use `static long x;` and other globals in data and bss as remote targets. At
// ishmem_init each PE moves the pages of its executable's writable segment (past RELRO) into a
// memfd: the contents are copied and the memfd is mapped MAP_SHARED|MAP_FIXED over the same range,
// so every variable stays at its address with its value. The memfd then goes to the node's other
// PEs the way the heap's does (bootstrap::exchange_fds), and each PE maps PE p's copy at
//     my globals + (peer_base[p] - heap_base),
// the offset at which it maps PE p's heap. translate(addr, p) = peer_base[p] + (addr - heap_base)
// is then right for a global as it is for a heap address: the fast paths and ishmem_ptr's mapping
// need no new case, only the checks learn a second range (runtime.h). heap.cpp places the peer
// heaps above mine, far enough apart that the peers' globals land above the executable and past
// its brk heap, with room left for that to grow (globals_min_stride).
//
// Limits: the executable's own data and bss only (not a shared library's, not thread_local); the
// program must not write globals from other threads while ishmem_init runs (such a write may be
// lost); every PE must run the same executable. A fork()ed child gets a private copy of the
// globals again, as without ishmem (otherwise parent and child would share them).
#include "globals.h"

#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <algorithm>
#include <cstring>
#include <vector>

#include "config.h"
#include "ishmem/impl/runtime.h"
#include "nodes.h"

namespace ishmemi {

namespace {

const char* const routine = "ishmem_init";

// My globals once moved into a memfd: the fd stays open for a later ishmem_init (after finalize)
// and for the fork handler; the mapping never moves back.
int shared_fd = -1;
char* shared_lo = nullptr;
size_t shared_size = 0;
std::vector<char*> peer_maps;  // my mappings of the peers' globals (map_size each)
size_t peer_map_size = 0;
double share_ms = 0;

// The segment is copied as raw bytes, the padding between variables included: under AddressSanitizer
// those bytes are redzones, which a checked pwrite or memcpy would report as an overflow of the
// variable before them. The copies therefore go through the system call itself, which reads and
// writes the pages as the kernel sees them; no variable is read as an object.
ssize_t raw_pwrite(int fd, const void* buf, size_t n, off_t off) { return syscall(SYS_pwrite64, fd, buf, n, off); }
ssize_t raw_pread(int fd, void* buf, size_t n, off_t off) { return syscall(SYS_pread64, fd, buf, n, off); }

size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

struct first_object {
    bool found = false;
    dl_phdr_info info{};
};

int take_first(dl_phdr_info* info, size_t, void* data) {
    auto* f = static_cast<first_object*>(data);
    f->info = *info;  // the program headers stay valid: the executable is never unloaded
    f->found = true;
    return 1;  // the first object is the executable
}

struct layout {  // offsets from the executable's load address; the same on every PE that runs it
    uint64_t enabled, lo, hi, map_lo, map_size;
};

// Writes the pages of [lo, lo + size) that may hold something other than zeros to fd at offset 0.
// Pages below file_hi come from the file and are always copied; past it (bss only) a page that was
// never touched, neither present nor swapped (/proc/self/pagemap), is zero and stays a hole.
void copy_into(int fd, char* lo, size_t size, char* file_hi) {
    const size_t page = page_size(), npages = size / page;
    int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    std::vector<uint64_t> entries(512);
    size_t run = 0, run_len = 0;  // a run of pages to copy
    auto flush = [&] {
        for (size_t off = 0; off < run_len;) {
            ssize_t w = raw_pwrite(fd, lo + (run + off), run_len - off, static_cast<off_t>(run + off));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) fatal(routine, "cannot copy the program's global data into shared memory: %s", strerror(errno));
            off += static_cast<size_t>(w);
        }
        run_len = 0;
    };
    size_t loaded = 0, loaded_n = 0;  // entries[] holds pages [loaded, loaded + loaded_n)
    for (size_t i = 0; i < npages; ++i) {
        bool copy = lo + i * page < file_hi || pm < 0;
        if (!copy && (i < loaded || i >= loaded + loaded_n)) {
            loaded = i;
            loaded_n = std::min(entries.size(), npages - i);
            const size_t first = reinterpret_cast<uintptr_t>(lo) / page + i;
            const ssize_t want = static_cast<ssize_t>(loaded_n * sizeof(uint64_t));
            if (pread(pm, entries.data(), static_cast<size_t>(want), static_cast<off_t>(first * sizeof(uint64_t))) !=
                want) {
                close(pm);
                pm = -1;
                copy = true;
            }
        }
        if (!copy) copy = (entries[i - loaded] >> 62) != 0;  // bit 63: present, bit 62: swapped
        if (copy) {
            if (run_len == 0) run = i * page;
            run_len += page;
        } else if (run_len) {
            flush();
        }
    }
    if (run_len) flush();
    if (pm >= 0) close(pm);
}

// A fork()ed child gets its own copy of the globals, as it would without ishmem: the memory's
// data ranges (SEEK_DATA) go into private pages that replace the shared mapping.
void privatize_in_child() {
    if (shared_fd < 0) return;
    void* tmp = mmap(nullptr, shared_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED) return;  // the child keeps sharing them
    off_t end = static_cast<off_t>(shared_size);
    for (off_t at = 0; at < end;) {
        off_t data = lseek(shared_fd, at, SEEK_DATA);
        if (data < 0) {
            if (errno == ENXIO) break;  // only holes (zeros) are left
            data = at;                  // no SEEK_DATA: copy the rest
        }
        off_t hole = lseek(shared_fd, data, SEEK_HOLE);
        if (hole < 0 || hole > end) hole = end;
        for (off_t at_read = data; at_read < hole;) {  // from the memfd: the same bytes (see raw_pwrite)
            const ssize_t r =
                raw_pread(shared_fd, static_cast<char*>(tmp) + at_read, static_cast<size_t>(hole - at_read), at_read);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            at_read += r;
        }
        at = hole;
    }
    if (mremap(tmp, shared_size, shared_size, MREMAP_MAYMOVE | MREMAP_FIXED, shared_lo) == MAP_FAILED)
        munmap(tmp, shared_size);
    close(shared_fd);
    shared_fd = -1;
}

// Moves [g.map_lo, + map_size) into a memfd (once per process); returns the memfd.
int make_shared(const globals_segment& g, char* file_hi) {
    if (shared_fd >= 0) return shared_fd;
    int fd = memfd_create("ishmem_globals", MFD_CLOEXEC);
    if (fd < 0) fatal(routine, "memfd_create for the program's global data failed: %s", strerror(errno));
    if (ftruncate(fd, static_cast<off_t>(g.map_size)) != 0)
        fatal(routine, "cannot size the shared copy of the program's global data (%zu bytes): %s", g.map_size,
              strerror(errno));
    copy_into(fd, g.map_lo, g.map_size, file_hi);
    // From here until the mapping below, a write to a global by another thread would be lost.
    void* p = mmap(g.map_lo, g.map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p != g.map_lo)
        fatal(routine, "cannot map the program's global data [%p, %p) as shared memory: %s",
              static_cast<void*>(g.map_lo), static_cast<void*>(g.map_lo + g.map_size), strerror(errno));
    static bool hooked = (pthread_atfork(nullptr, nullptr, privatize_in_child), true);
    (void)hooked;
    shared_fd = fd;
    shared_lo = g.map_lo;
    shared_size = g.map_size;
    return fd;
}

char* file_end = nullptr;  // end of the file-backed part of the segment (globals_find)

}  // namespace

globals_segment globals_find(bootstrap& boot) {
    globals_segment g;
    const bool enabled = state.backend == backend_kind::host && config.symmetric_globals;
    first_object f;
    if (enabled) dl_iterate_phdr(take_first, &f);
    if (f.found) {
        const size_t page = page_size();
        const uintptr_t bias = f.info.dlpi_addr;
        uintptr_t relro_lo = 0, relro_hi = 0;
        for (int i = 0; i < f.info.dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = f.info.dlpi_phdr[i];
            if (ph.p_type == PT_GNU_RELRO) {
                relro_lo = bias + ph.p_vaddr;
                relro_hi = relro_lo + ph.p_memsz;
            }
        }
        for (int i = 0; i < f.info.dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = f.info.dlpi_phdr[i];
            if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
            uintptr_t lo = bias + ph.p_vaddr, hi = lo + ph.p_memsz;
            // The dynamic loader makes the RELRO pages read-only (those wholly inside it): skip them.
            if (relro_hi > relro_lo && relro_lo >= lo && relro_lo < hi) lo = relro_hi < hi ? relro_hi : hi;
            if (lo >= hi) continue;
            g.lo = reinterpret_cast<char*>(lo);
            g.hi = reinterpret_cast<char*>(hi);
            g.map_lo = reinterpret_cast<char*>(lo / page * page);
            g.map_size = (hi + page - 1) / page * page - lo / page * page;
            g.bias = bias;
            file_end = reinterpret_cast<char*>(bias + ph.p_vaddr + ph.p_filesz);
            break;
        }
    }

    // Offsets into the executable must mean the same variable on every PE.
    const int n = boot.n_pes();
    layout mine{enabled ? 1u : 0u, 0, 0, 0, 0};
    if (g.map_size)
        mine = {1, reinterpret_cast<uintptr_t>(g.lo) - g.bias, reinterpret_cast<uintptr_t>(g.hi) - g.bias,
                reinterpret_cast<uintptr_t>(g.map_lo) - g.bias, g.map_size};
    std::vector<layout> all(n);
    boot.allgather(&mine, all.data(), sizeof mine);
    for (int pe = 0; pe < n; ++pe) {
        const layout& o = all[pe];
        if (o.enabled != mine.enabled && state.backend == backend_kind::host)
            fatal(routine, "ISHMEM_SYMMETRIC_GLOBALS differs between PEs: %s here, %s on PE %d",
                  mine.enabled ? "1" : "0", o.enabled ? "1" : "0", pe);
        if (memcmp(&o, &mine, sizeof mine) != 0)
            fatal(routine,
                  "PE %d runs an executable whose data and bss are laid out differently ([%#llx, %#llx) from its "
                  "load address; here [%#llx, %#llx)): global variables are symmetric only when every PE runs the "
                  "same executable (or set ISHMEM_SYMMETRIC_GLOBALS=0)",
                  pe, static_cast<unsigned long long>(o.lo), static_cast<unsigned long long>(o.hi),
                  static_cast<unsigned long long>(mine.lo), static_cast<unsigned long long>(mine.hi));
    }
    return g;
}

size_t globals_min_stride(const globals_segment& g) {
    if (!g.map_size) return 0;
    // The kernel starts the brk heap up to 1 GiB past bss (32 MiB before Linux 6.9) and it grows
    // from there: the first peer goes past its current end, with 1 GiB of room.
    uintptr_t top = reinterpret_cast<uintptr_t>(g.map_lo) + g.map_size;
    void* brk_now = sbrk(0);
    if (brk_now != reinterpret_cast<void*>(-1) && reinterpret_cast<uintptr_t>(brk_now) > top)
        top = reinterpret_cast<uintptr_t>(brk_now);
    return top - reinterpret_cast<uintptr_t>(g.map_lo) + (size_t{1} << 30);
}

void globals_share(bootstrap& boot, const globals_segment& g, char* const* peer_base) {
    state.globals_base = nullptr;
    state.globals_size = 0;
    if (!g.map_size) return;  // no PE has any (globals_find checked that they agree)
    const int n = boot.n_pes(), me = boot.pe();
    state.globals_base = g.lo;
    state.globals_size = static_cast<size_t>(g.hi - g.lo);
    if (n == 1) return;  // no peer to share them with: they stay as they are
    const auto t0 = std::chrono::steady_clock::now();
    const int fd = make_shared(g, file_end);
    std::vector<int> fds(n, -1);
    // exchange_fds hands every descriptor to the caller; keep mine for later inits and forks.
    const int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup_fd < 0) fatal(routine, "cannot duplicate the descriptor of the program's global data: %s", strerror(errno));
    boot.exchange_fds(dup_fd, fds.data(), node_table());
    peer_maps.clear();
    peer_map_size = g.map_size;
    for (int pe = 0; pe < n; ++pe) {
        if (pe != me && peer_base[pe]) {  // (a PE of another node: reached through the transport)
            char* at = g.map_lo + (peer_base[pe] - peer_base[me]);
            void* p = mmap(at, g.map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fds[pe], 0);
            if (p != MAP_FAILED && p != at) {  // a kernel before 4.17 takes the address as a hint
                munmap(p, g.map_size);
                errno = EEXIST;
            }
            if (p != at)
                fatal(routine,
                      "cannot map PE %d's global data at %p (%zu bytes, at the offset of its heap from mine): %s; "
                      "set ISHMEM_SYMMETRIC_GLOBALS=0 to keep global variables private",
                      pe, static_cast<void*>(at), g.map_size,
                      errno == EEXIST ? "the range is in use (the brk heap?)" : strerror(errno));
            peer_maps.push_back(at);
        }
        if (fds[pe] >= 0) close(fds[pe]);
    }
    share_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double globals_share_ms() { return share_ms; }

void globals_unshare() {
    for (char* p : peer_maps) munmap(p, peer_map_size);
    peer_maps.clear();
    state.globals_base = nullptr;
    state.globals_size = 0;
}

}  // namespace ishmemi

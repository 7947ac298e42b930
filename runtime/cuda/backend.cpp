// The CUDA backend's life cycle: is it usable, which GPU is this PE's, the device-visible state that
// every module gets, and the watcher that prints device code's ishmemx_print messages and turns a
// device-side argument error into the usual error line.
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../src/config.h"
#include "../src/gpu_backend.h"
#include "../src/nodes.h"
#include "../src/print.h"
#include "cuda_call.h"
#include "ishmem/cuda/device_state.h"
#include "ishmem/impl/teams.h"
#include "ishmem/impl/transport.h"

namespace ishmemi {

namespace cuda {
extern long long heap_stride;  // heap_cuda.cpp
extern size_t sync_offset;     // heap_cuda.cpp

namespace {

int this_device = -1;
std::mutex setters_mutex;
std::vector<device_state_setter> setters;  // one per module that includes ishmem.h
device_state published{};                  // what the setters copy to their module
bool running = false;
error_mailbox* mailbox = nullptr;             // mapped pinned host memory
print_ring* prints = nullptr;                 // mapped pinned host memory
unsigned long long* print_tickets = nullptr;  // GPU memory
device_team* device_teams = nullptr;          // GPU memory: team_slots_max entries (gpu_team_set)
void* proxy_ring = nullptr;                   // mapped pinned host memory; null on one node
unsigned char* pe_remote = nullptr;           // GPU memory: n_pes flags; null on one node
unsigned long long* proxy_tickets = nullptr;  // GPU memory: the ring's ticket counter
std::atomic<bool> stop_watcher{false};
std::thread* watcher = nullptr;  // never destroyed while running: a program may exit without finalize

// This PE's GPU sync region (a gpu_sync_slot per team slot), and after it the medium stages.
char* sync_region() { return state.heap_base + sync_offset; }
char* medium_region() { return sync_region() + team_slots_max * sizeof(gpu_sync_slot); }

// Prints the device's error as "ishmem: PE n: <routine> (device code, block b, thread t): <reason>"
// through the host's own messages, and ends the process (the launcher then stops the job).
[[noreturn]] void report(const error_mailbox& m) {
    char routine[192];
    snprintf(routine, sizeof routine, "%s (device code, block %u, thread %u)", m.routine, m.block, m.thread);
    switch (m.code) {
        case err_pe:
            fail_pe(routine, static_cast<int>(m.a));
        case err_symmetric:
            fail_symmetric(routine, m.param, reinterpret_cast<const void*>(static_cast<uintptr_t>(m.a)),
                           static_cast<size_t>(m.b));
        case err_nonnull:
            fail_nonnull(routine, m.param, static_cast<size_t>(m.a));
        case err_sig_op:
            fail_sig_op(routine, static_cast<int>(m.a));
        case err_cmp:
            fail_cmp(routine, static_cast<int>(m.a));
        case err_positive:
            fail_positive(routine, m.param, m.a);
        case err_power_of_two:
            fail_power_of_two(routine, m.param, static_cast<size_t>(m.a));
        case err_aligned:
            fail_aligned(routine, m.param, reinterpret_cast<const void*>(static_cast<uintptr_t>(m.a)),
                         static_cast<size_t>(m.b));
        case err_concurrent:
            fatal(routine,
                  "another thread or group of this PE is inside a collective on team %lld: a PE may have one "
                  "caller in a team's collectives at a time",
                  m.a);
        case err_team_size:
            fatal(routine, "team %lld has %lld PEs; collectives in device code serve teams of at most %lld", m.a, m.b,
                  m.c);
        case err_unreported:
            fatal(routine, "internal error: an argument check failed without naming its reason; please report it");
        default:
            fatal(routine, "device-side error %d", m.code);
    }
}

// Prints the ring's complete messages in ticket order, up to the first one still being written;
// returns how many.
unsigned drain_prints() {
    unsigned printed = 0;
    for (;;) {
        const unsigned long long next = prints->consumed;  // only this thread writes it
        print_slot& s = prints->slots[next % print_slots];
        if (__atomic_load_n(&s.seq, __ATOMIC_ACQUIRE) != next + 1) return printed;
        print_message(
            {s.file[0] ? s.file : nullptr, s.line, s.func[0] ? s.func : nullptr, s.text, s.type, s.block, s.thread});
        __atomic_store_n(&prints->consumed, next + 1, __ATOMIC_RELEASE);  // the slot is free again
        ++printed;
    }
}

// Every millisecond while idle: prints first, so that what a kernel printed before a failing call
// comes before the error line.
void watch() {
    for (;;) {
        const bool stopping = stop_watcher.load(std::memory_order_acquire);
        const unsigned printed = drain_prints();
        if (__atomic_load_n(&mailbox->state, __ATOMIC_ACQUIRE) == 2) report(*mailbox);
        if (stopping) return;  // the GPU was idle before the stop was asked for: the ring is empty
        if (printed == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// This PE's rank among the PEs on its host (same hostname), from an allgather of hostnames.
int local_rank(bootstrap& boot) {
    struct name {
        char text[64];
    } mine{};
    gethostname(mine.text, sizeof mine.text - 1);
    std::vector<name> all(boot.n_pes());
    boot.allgather(&mine, all.data(), sizeof mine);
    int rank = 0;
    for (int pe = 0; pe < boot.pe(); ++pe)
        if (strcmp(all[pe].text, mine.text) == 0) ++rank;
    return rank;
}

}  // namespace

int device() { return this_device; }

void ensure_device() {
    thread_local int current = -1;
    if (current != this_device && this_device >= 0) {
        check(cudaSetDevice(this_device), "ishmem", "cudaSetDevice");
        current = this_device;
    }
}

cudaStream_t host_stream() {
    static cudaStream_t s = [] {
        cudaStream_t t;
        check(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking), "ishmem_init", "cudaStreamCreateWithFlags");
        return t;
    }();
    return s;
}

void register_device_state(device_state_setter set) {
    std::lock_guard<std::mutex> lock(setters_mutex);
    setters.push_back(set);
    if (running) set(&published);
}

}  // namespace cuda

bool gpu_backend_usable(const char** why) {
    // Lazy module loading loads a kernel at its first launch and may wait for running kernels to
    // do so; a queue's gate kernel, or a user kernel waiting for a peer, then never ends. Load
    // eagerly unless the user chose otherwise (read when CUDA initializes, so before any CUDA call).
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        static std::string text;
        text = err != cudaSuccess ? std::string("no CUDA device can be used: ") + cudaGetErrorString(err)
                                  : std::string("no CUDA device is visible");
        *why = text.c_str();
        return false;
    }
    return true;
}

void gpu_backend_bind(bootstrap& boot) {
    const char* routine = "ishmem_init";
    int count = 0;
    cuda::check(cudaGetDeviceCount(&count), routine, "cudaGetDeviceCount");
    const int local = cuda::local_rank(boot);
    int dev = config.device >= 0 ? config.device : local % count;
    if (dev >= count) fatal(routine, "ISHMEM_DEVICE=%d, but only %d CUDA device(s) are visible", dev, count);
    cuda::check(cudaSetDevice(dev), routine, "cudaSetDevice");
    cuda::check(cudaFree(nullptr), routine, "creating the CUDA context");
    cuda::this_device = dev;

    // PEs that share a GPU work (each maps the others' heaps), but they time-share its SMs.
    struct where {
        char host[64];
        char bus[32];
    } mine{};
    gethostname(mine.host, sizeof mine.host - 1);
    cuda::check(cudaDeviceGetPCIBusId(mine.bus, sizeof mine.bus, dev), routine, "cudaDeviceGetPCIBusId");
    std::vector<where> all(boot.n_pes());
    boot.allgather(&mine, all.data(), sizeof mine);
    for (int pe = 0; pe < boot.n_pes(); ++pe)
        if (pe != boot.pe() && strcmp(all[pe].host, mine.host) == 0 && strcmp(all[pe].bus, mine.bus) == 0) {
            if (boot.pe() < pe)
                warn(routine,
                     "PEs %d and %d share GPU %s; this works, but they take turns on it (give each PE its "
                     "own GPU: CUDA_VISIBLE_DEVICES or ISHMEM_DEVICE)",
                     boot.pe(), pe, mine.bus);
            break;
        }
}

void gpu_backend_start() {
    const char* routine = "ishmem_init";
    using namespace cuda;
    check(cudaHostAlloc(reinterpret_cast<void**>(&mailbox), sizeof(error_mailbox), cudaHostAllocMapped), routine,
          "allocating the device error mailbox");
    memset(mailbox, 0, sizeof *mailbox);
    void* dev_mailbox = nullptr;
    check(cudaHostGetDevicePointer(&dev_mailbox, mailbox, 0), routine, "cudaHostGetDevicePointer");
    unsigned long long* any_starts = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&any_starts), 64 * sizeof(unsigned long long)), routine, "cudaMalloc");
    check(cudaMemset(any_starts, 0, 64 * sizeof(unsigned long long)), routine, "cudaMemset");
    check(cudaHostAlloc(reinterpret_cast<void**>(&prints), sizeof(print_ring), cudaHostAllocMapped), routine,
          "allocating the device print ring");
    memset(prints, 0, sizeof *prints);
    prints->debug = print_debug_enabled();
    void* dev_prints = nullptr;
    check(cudaHostGetDevicePointer(&dev_prints, prints, 0), routine, "cudaHostGetDevicePointer");
    check(cudaMalloc(reinterpret_cast<void**>(&print_tickets), sizeof(unsigned long long)), routine, "cudaMalloc");
    check(cudaMemset(print_tickets, 0, sizeof(unsigned long long)), routine, "cudaMemset");

    // Whatever the host paths allocate or create, now: inside a queue task a synchronizing call
    // (cudaHostAlloc, ...) would wait for the very kernel that holds the stream for that task.
    host_stream();
    host_ops_init();
    stream_gates_init();
    collectives_init();

    check(cudaMalloc(reinterpret_cast<void**>(&device_teams), team_slots_max * sizeof(device_team)), routine,
          "cudaMalloc");
    check(cudaMemset(device_teams, 0, team_slots_max * sizeof(device_team)), routine, "cudaMemset");

    // A job over several nodes: device code reaches the PEs of other nodes through the proxy
    // (cuda/remote.cuh), whose ring lies where both this GPU and the proxy thread reach it.
    ishmemi::proxy::ring_header* dev_ring = nullptr;
    if (!job_on_one_node()) {
        const size_t ring_bytes = ishmemi::proxy::ring_bytes(config.proxy_slots);
        check(cudaHostAlloc(&proxy_ring, ring_bytes, cudaHostAllocMapped), routine, "allocating the proxy's ring");
        memset(proxy_ring, 0, ring_bytes);
        void* dev = nullptr;
        check(cudaHostGetDevicePointer(&dev, proxy_ring, 0), routine, "cudaHostGetDevicePointer");
        dev_ring = static_cast<ishmemi::proxy::ring_header*>(dev);
        std::vector<unsigned char> flags(static_cast<size_t>(state.n_pes));
        for (int pe = 0; pe < state.n_pes; ++pe) flags[static_cast<size_t>(pe)] = is_remote(pe) ? 1 : 0;
        check(cudaMalloc(reinterpret_cast<void**>(&pe_remote), flags.size()), routine, "cudaMalloc");
        check(cudaMemcpy(pe_remote, flags.data(), flags.size(), cudaMemcpyHostToDevice), routine, "cudaMemcpy");
        check(cudaMalloc(reinterpret_cast<void**>(&proxy_tickets), sizeof *proxy_tickets), routine, "cudaMalloc");
        check(cudaMemset(proxy_tickets, 0, sizeof *proxy_tickets), routine, "cudaMemset");
    }

    device_state s{};
    s.initialized = 1;
    s.device = this_device;
    s.my_pe = state.my_pe;
    s.n_pes = state.n_pes;
    s.heap_base = state.heap_base;
    s.heap_size = state.heap_size;
    s.peer_stride = heap_stride;
    s.mailbox = static_cast<error_mailbox*>(dev_mailbox);
    s.any_starts = any_starts;
    s.prints = static_cast<print_ring*>(dev_prints);
    s.print_tickets = print_tickets;
    s.sync_base = sync_region();
    s.teams = device_teams;
    s.teams_max = team_slots_max;
    s.stage_limit = static_cast<unsigned>(config.gpu_stage_bytes);
    s.medium_base = medium_region();
    s.medium_limit = static_cast<unsigned>(config.gpu_medium_bytes);
    s.medium_gather_limit = static_cast<unsigned>(config.gpu_medium_gather_bytes);
    s.medium_reduce_limit = static_cast<unsigned>(config.gpu_medium_reduce_bytes);
    s.medium_part = static_cast<unsigned>(config.gpu_medium_part);
    s.broadcast_piece = static_cast<unsigned>(config.gpu_broadcast_piece);
    s.proxy = dev_ring;
    s.pe_remote = pe_remote;
    s.proxy_tickets = proxy_tickets;
    stop_watcher = false;
    watcher = new std::thread(watch);
    std::lock_guard<std::mutex> lock(setters_mutex);
    published = s;
    running = true;
    for (device_state_setter set : setters) set(&published);
}

void gpu_team_set(int slot, const team_t* t) {
    using namespace cuda;
    device_team d{};
    if (t && t->valid) {
        d.start = t->start, d.stride = t->stride, d.size = t->size, d.my_index = t->my_index;
        for (int i = 0; i < t->size; ++i) d.spans_nodes |= is_remote(t->start + i * t->stride) ? 1 : 0;
        if (d.spans_nodes && config.gpu_node_levels && t->size <= device_team::node_mask_bits)
            set_node_levels(
                d, [t](int m) { return node_of(t->start + m * t->stride); }, node_of(state.my_pe));
    }
    gpu::copy(device_teams + slot, &d, sizeof d);
    if (t) gpu::fill_zero(sync_region() + static_cast<size_t>(slot) * sizeof(gpu_sync_slot), sizeof(gpu_sync_slot));
    if (t && slot < medium_slots)  // its counters, flags and acks; a stage holds nothing until flagged
        gpu::fill_zero(medium_region() + static_cast<size_t>(slot) * sizeof(gpu_medium_slot),
                       offsetof(gpu_medium_slot, stage));
}

void* gpu_proxy_ring() { return cuda::proxy_ring; }

void gpu_backend_stop() {
    using namespace cuda;
    cudaDeviceSynchronize();  // the watcher goes on printing meanwhile: a kernel may wait for ring slots
    {
        std::lock_guard<std::mutex> lock(setters_mutex);
        running = false;
        published = device_state{};  // device entry points called after finalize report it
        published.device = this_device;
        published.finalized = 1;
        for (device_state_setter set : setters) set(&published);
    }
    // Every kernel has ended, so every print it made is in the ring: the watcher prints them and ends.
    stop_watcher = true;
    if (watcher) {
        watcher->join();
        delete watcher;
        watcher = nullptr;
    }
    cudaFreeHost(prints);
    cudaFreeHost(proxy_ring);  // after the transport that served it (finalize destroys that first)
    cudaFree(pe_remote);
    cudaFree(proxy_tickets);
    proxy_tickets = nullptr;
    proxy_ring = nullptr;
    pe_remote = nullptr;
    cudaFree(print_tickets);
    cudaFree(device_teams);
    device_teams = nullptr;
    prints = nullptr;
    print_tickets = nullptr;
}

}  // namespace ishmemi

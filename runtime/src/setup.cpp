// ishmem_init / ishmem_finalize and the queries about the library itself.
#include <string_view>

#include "ishmem/impl/setup.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "allocator.h"
#include "bootstrap_select.h"
#include "called_as.h"
#include "config.h"
#include "ishmem/impl/collectives.h"
#include "ishmem/impl/contexts.h"
#include "ishmem/impl/teams.h"
#include "control.h"
#include "gpu_backend.h"
#include "globals.h"
#include "heap.h"
#include "proxy.h"
#include "ishmem/impl/transport.h"
#include "nodes.h"
#include "ishmem/impl/sync.h"

namespace ishmemi {

state_t state = {false, -1, 0, nullptr, 0, nullptr, backend_kind::host, nullptr, false};
transport* remote = nullptr;

bool remote_heap_by_messages() { return config.mpi_rma == 2 || (config.mpi_rma == 0 && heap_on_gpu()); }

namespace {

std::unique_ptr<bootstrap> boot;
std::unique_ptr<transport> remote_owner;
ishmemx_runtime_type_t runtime_type = ISHMEMX_RUNTIME_INVALID;
pid_t init_pid = 0;

// Whether shmem.h's shmem_init, shmem_init_thread or start_pes is starting the library: only
// shmem.h's routines set ishmemi_called_as (SHMEMI_CALLED_AS; spec: openshmem `starts`).
bool started_by_openshmem() { return ishmemi_called_as != nullptr; }

// ISHMEM_BACKEND, else attr->gpu and whether a GPU is usable; every PE must come to the same answer.
// A shmem.h program gets the host backend unless ISHMEM_BACKEND=cuda: its routines are host
// routines and it reads and writes its symmetric objects from the host, which GPU memory forbids.
backend_kind choose_backend(const ishmemx_attr_t* attr, const char* routine) {
    const char* why = nullptr;
    const bool usable = gpu_backend_usable(&why);
    backend_kind b = backend_kind::host;
    if (strcmp(config.backend, "cuda") == 0) {
        if (!usable) fatal(routine, "ISHMEM_BACKEND=cuda, but %s", why);
        b = backend_kind::cuda;
    } else if (strcmp(config.backend, "auto") == 0 && attr->gpu && usable && !started_by_openshmem()) {
        b = backend_kind::cuda;
    }
    std::vector<int> all(state.n_pes);
    int mine = static_cast<int>(b);
    boot->allgather(&mine, all.data(), sizeof mine);
    for (int pe = 0; pe < state.n_pes; ++pe)
        if (all[pe] != mine)
            fatal(routine,
                  "PEs disagree on the backend: %s here, %s on PE %d (set ISHMEM_BACKEND, or give every "
                  "PE a GPU)",
                  mine ? "cuda" : "host", all[pe] ? "cuda" : "host", pe);
    return b;
}

// Settings that must be the same on every PE: the heap size (symmetric offsets would mean different
// things), and what chooses how a collective runs (a PE that took another form than its peers would
// wait for flags that nobody sets; the GPU cut-overs matter on the CUDA backend only).
void check_settings_agree(const char* routine) {
    struct setting {
        const char* name;
        uint64_t value;
    };
    std::vector<setting> mine = {{"ISHMEM_SYMMETRIC_SIZE", config.symmetric_size},
                                 {"ISHMEM_TEAMS_MAX", static_cast<uint64_t>(config.teams_max)},
                                 {"ISHMEM_REDUCE_SCATTER_MIN", reduce_scatter_min},
                                 {"ISHMEM_CHAIN_MIN", static_cast<uint64_t>(chain_min)},
                                 {"ISHMEM_SCAN_CHAIN_MAX", scan_chain_max}};
    if (state.backend == backend_kind::cuda)
        mine.insert(mine.end(), {{"ISHMEM_GPU_STAGE_BYTES", config.gpu_stage_bytes},
                                 {"ISHMEM_GPU_MEDIUM_BYTES", config.gpu_medium_bytes},
                                 {"ISHMEM_GPU_MEDIUM_GATHER_BYTES", config.gpu_medium_gather_bytes},
                                 {"ISHMEM_GPU_MEDIUM_REDUCE_BYTES", config.gpu_medium_reduce_bytes},
                                 {"ISHMEM_GPU_MEDIUM_PART_BYTES", config.gpu_medium_part},
                                 {"ISHMEM_GPU_BROADCAST_PIECE_BYTES", config.gpu_broadcast_piece},
                                 {"ISHMEM_GPU_NODE_LEVELS", config.gpu_node_levels ? 1u : 0u}});
    const size_t k = mine.size();
    std::vector<uint64_t> values(k), all(k * static_cast<size_t>(state.n_pes));
    for (size_t i = 0; i < k; ++i) values[i] = mine[i].value;
    boot->allgather(values.data(), all.data(), k * sizeof(uint64_t));
    for (int pe = 0; pe < state.n_pes; ++pe)
        for (size_t i = 0; i < k; ++i)
            if (all[static_cast<size_t>(pe) * k + i] != values[i])
                fatal(routine, "%s differs between PEs: %llu here, %llu on PE %d (every PE must use the same value)",
                      mine[i].name, static_cast<unsigned long long>(values[i]),
                      static_cast<unsigned long long>(all[static_cast<size_t>(pe) * k + i]), pe);
}

// A program may end without ishmem_finalize; peers waiting for this PE then learn that it left
// instead of waiting forever (see sync.cpp). A forked child's exit is not the PE's.
void mark_exited() {
    if (state.initialized && getpid() == init_pid) set_my_status(pe_exited);
}

void initialize(ishmemx_attr_t* attr, const char* routine) {
    if (state.initialized) {
        warn(routine, "ishmem is already initialized; this call is ignored");
        return;
    }
    ishmemx_attr_t defaults;
    if (!attr) attr = &defaults;

    const char* kind = nullptr;
    boot = select_bootstrap(attr, routine, &kind);
    state.my_pe = boot->pe();
    state.n_pes = boot->n_pes();
    // What bootstrapped the job, not what was asked for: the launcher plays the OpenSHMEM runtime's part.
    runtime_type = std::string_view(kind) == "mpi" ? ISHMEMX_RUNTIME_MPI : ISHMEMX_RUNTIME_OPENSHMEM;

    load_config(state.my_pe == 0);
    nodes_find(*boot);
    state.backend = choose_backend(attr, routine);
    check_settings_agree(routine);
    if (state.backend == backend_kind::cuda) gpu_backend_bind(*boot);
    heap_create(*boot, config.symmetric_size);
    if (state.backend == backend_kind::cuda) gpu_backend_start();
    // Every PE makes the transport, or none: all know whether the job spans nodes.
    if (!job_on_one_node()) {
        remote_owner = boot->make_transport(config.progress_sleep_us);
        if (!remote_owner)
            fatal(routine,
                  "the PEs are on several nodes (ISHMEM_NODE_SPLIT=%s), but the %s bootstrap reaches one "
                  "node only: start the job with mpirun and link ishmem::mpi (or set ISHMEM_RUNTIME=mpi)",
                  config.node_split_text, kind);
        // GPU threads reach other nodes only through the proxy, whose ring the backend made where
        // they can post (gpu_proxy_ring); the host's calls then take the same path, in order with them.
        if (state.backend == backend_kind::cuda)
            remote_owner = make_proxy_transport(std::move(remote_owner), config.proxy_slots, gpu_proxy_ring());
        else if (config.remote_proxy)
            remote_owner = make_proxy_transport(std::move(remote_owner), config.proxy_slots);
        remote = remote_owner.get();
    }
    allocator_reset(state.heap_size);
    teams_init();  // zeroes this PE's team slots: before the barrier, after which peers may signal
    // Every PE has mapped every heap before anyone may touch a peer.
    boot->barrier();
    if (remote) remote->start_progress_thread();  // after the bootstrap's MPI calls (transport_mpi.cpp)

    init_pid = getpid();
    static bool exit_hook = (atexit(mark_exited), true);
    (void)exit_hook;
    state.initialized = true;
    state.finalized = false;
    debug(routine, "%d PEs, bootstrap %s, backend %s, symmetric heap %zu bytes at %p (ISHMEM_SYMMETRIC_SIZE=%s)",
          state.n_pes, kind, state.backend == backend_kind::cuda ? "cuda" : "host", state.heap_size,
          static_cast<void*>(state.heap_base), config.symmetric_text);
    if (state.globals_size)
        debug(routine, "global and static variables symmetric: [%p, %p) (%zu bytes of data and bss; shared in %.2f ms)",
              static_cast<void*>(state.globals_base), static_cast<void*>(state.globals_base + state.globals_size),
              state.globals_size, globals_share_ms());
}

}  // namespace

bootstrap* active_bootstrap() { return boot.get(); }

namespace impl {

void init() { initialize(nullptr, "ishmem_init"); }

void init_attr(ishmemx_attr_t* attr) { initialize(attr, "ishmemx_init_attr"); }

int init_thread(int requested, int* provided) {
    const char* routine = "ishmem_init_thread";
    if (requested < ISHMEM_THREAD_SINGLE || requested > ISHMEM_THREAD_MULTIPLE)
        warn(routine,
             "requested %d is not a thread level (ISHMEM_THREAD_SINGLE..MULTIPLE); providing "
             "ISHMEM_THREAD_MULTIPLE",
             requested);
    initialize(nullptr, routine);
    if (provided) *provided = ISHMEM_THREAD_MULTIPLE;
    return 0;
}

void query_thread(int* provided) { *provided = ISHMEM_THREAD_MULTIPLE; }

void finalize() {
    if (!state.initialized) {
        warn("ishmem_finalize", state.finalized ? "ishmem is already finalized; this call is ignored"
                                                : "ishmem is not initialized; this call is ignored");
        return;
    }
    barrier_all("ishmem_finalize");
    set_my_status(pe_finalized);
    state.initialized = false;
    state.finalized = true;
    teams_fini();
    contexts_fini();
    remote = nullptr;
    remote_owner.reset();  // collective: frees the transport's windows and communicators
    if (state.backend == backend_kind::cuda) gpu_backend_stop();
    heap_destroy();
    nodes_clear();
    boot.reset();
    runtime_type = ISHMEMX_RUNTIME_INVALID;
}

void global_exit(int status) {
    if (bootstrap* b = active_bootstrap()) b->global_exit(status);
    // Not initialized (or finalized): under ishmrun the other PEs still run, and the launcher ends them.
    std::fflush(nullptr);
    notify_launcher_global_exit(status);
    _exit(status);
}

void query_initialized(int* initialized) { *initialized = state.initialized ? 1 : 0; }

ishmemx_runtime_type_t runtime_get_type() { return runtime_type; }

}  // namespace impl
}  // namespace ishmemi

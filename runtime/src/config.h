// Values of the ISHMEM_* environment variables, read once by ishmem_init.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ishmemi {

struct config_t {
    size_t symmetric_size;           // ISHMEM_SYMMETRIC_SIZE in bytes
    const char* symmetric_text;      // as written by the user (for messages)
    bool debug;                      // ISHMEM_DEBUG
    int teams_max;                   // ISHMEM_TEAMS_MAX
    unsigned barrier_spins;          // ISHMEM_BARRIER_SPINS
    unsigned wait_spins;             // ISHMEM_WAIT_SPINS
    size_t gpu_coll_block_bytes;     // ISHMEM_GPU_COLL_BLOCK_BYTES
    size_t gpu_reduce_block_bytes;   // ISHMEM_GPU_REDUCE_BLOCK_BYTES
    size_t gpu_stage_bytes;          // ISHMEM_GPU_STAGE_BYTES (0: off)
    size_t gpu_medium_bytes;         // ISHMEM_GPU_MEDIUM_BYTES (broadcast; 0: off)
    size_t gpu_medium_gather_bytes;  // ISHMEM_GPU_MEDIUM_GATHER_BYTES (fcollect, alltoall; 0: off)
    size_t gpu_medium_reduce_bytes;  // ISHMEM_GPU_MEDIUM_REDUCE_BYTES (reductions, scans; 0: off)
    size_t gpu_medium_part;          // ISHMEM_GPU_MEDIUM_PART_BYTES
    size_t gpu_broadcast_piece;      // ISHMEM_GPU_BROADCAST_PIECE_BYTES (0: no relay)
    bool gpu_early_launch;           // ISHMEM_GPU_EARLY_LAUNCH
    const char* backend;             // ISHMEM_BACKEND: host, cuda or auto
    int device;                      // ISHMEM_DEVICE: an ordinal, or -1 for local
    bool check_full;                 // ISHMEM_CHECK=full
    uint64_t hang_timeout_ns;        // ISHMEM_HANG_TIMEOUT in ns; 0: off
    const char* hang_timeout_text;
    bool symmetric_globals;  // ISHMEM_SYMMETRIC_GLOBALS
    int node_split;          // ISHMEM_NODE_SPLIT: 0 by host name, k: every k consecutive PEs a node (pe: 1)
    int node_cyclic;         // ISHMEM_NODE_SPLIT=cyclic:N: N nodes, PE p on node p mod N; else 0
    const char* node_split_text;
    bool hierarchical;       // ISHMEM_HIERARCHICAL
    bool gpu_node_levels;    // ISHMEM_GPU_NODE_LEVELS
    long progress_sleep_us;  // ISHMEM_MPI_PROGRESS_SLEEP_US
    bool remote_proxy;       // ISHMEM_REMOTE_PROXY
    long proxy_slots;        // ISHMEM_PROXY_SLOTS
    int mpi_rma;             // ISHMEM_MPI_RMA: 0 auto, 1 windows, 2 messages
};
extern config_t config;

// Parses the environment into config (fatal on a malformed value); warns on PE 0 about
// ISHMEM_* names that are not in config_vars.
void load_config(bool warn_unknown);

// "ISHMEM_SYMMETRIC_SIZE" -> parsed byte count; false when malformed, zero or overflowing.
bool parse_size(const char* text, size_t* bytes);

// 1/y/yes/true/on and 0/n/no/false/off, any case; false when text is neither.
bool parse_bool(const char* text, bool* out);

// ishmemi::debug("ishmem_init", ...) prints "ishmem: PE n: debug: ..." when ISHMEM_DEBUG=1.
void debug(const char* routine, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace ishmemi

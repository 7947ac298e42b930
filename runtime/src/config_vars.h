// The ISHMEM_* environment variables: the one list that the runtime parses, warns against and
// that ishmrun --help and the docs print.
#pragma once

namespace ishmemi {

struct config_var {
    const char* name;
    const char* default_value;
    const char* doc;
};

inline constexpr config_var config_vars[] = {
    {"ISHMEM_SYMMETRIC_SIZE", "512M",
     "Size of the symmetric heap of each PE: bytes, or a number with suffix K, M, G or T (powers of 1024)."},
    {"ISHMEM_DEBUG", "0",
     "1 prints what ishmem_init chose (bootstrap, heap size, mappings) on every PE, and lets "
     "ishmemx_print's DEBUG messages through."},
    {"ISHMEM_ENABLE_VERBOSE_PRINT", "0",
     "1 starts every ishmemx_print message with the PE, the message type and, where the call names "
     "them, file, line and function."},
    {"ISHMEM_TEST_TIMEOUT", "60", "Read by the test suite only: seconds one test may run before it fails as hung."},
    {"ISHMEM_CC", "cc", "Read by the oshcc compiler wrapper only: the C compiler it calls."},
    {"ISHMEM_CXX", "c++", "Read by the oshc++ compiler wrapper only: the C++ compiler it calls."},
    {"ISHMEM_TEST_WAIT_MS", "5000",
     "Read by the test suite only: milliseconds a test waits for another PE's update before it fails."},
    {"ISHMEM_TEAMS_MAX", "64", "Most teams (the predefined ones included) that may exist at once on a PE."},
    {"ISHMEM_BARRIER_SPINS", "auto",
     "Polls of a collective's wait loop (barriers, flag exchanges) before it starts yielding the "
     "core; auto: 1024 when every PE of the node has a core, 0 (yield at once) when there are more PEs than cores."},
    {"ISHMEM_REDUCE_SCATTER_MIN", "1K",
     "Bytes (nreduce or nelems times the element size) from which reductions and scans over 2 or more "
     "PEs are chunked: each PE reduces or scans one chunk over all PEs and writes it into every PE's dest."},
    {"ISHMEM_BACKEND", "auto",
     "Where the symmetric heap lives and device code runs: host (shared host memory, CPU threads), cuda "
     "(GPU memory, CUDA kernels; fails when the library has no CUDA or no GPU is visible), or auto: cuda "
     "when the library has CUDA, a GPU is visible and ishmemx_attr_t::gpu is true, else host."},
    {"ISHMEM_CHAIN_MIN", "2",
     "Host backend: team size from which scans and broadcasts of at most 512 bytes (on teams of at most 8 "
     "PEs) pass along a chain of the members, one message in and one out per PE, so that calls in a row "
     "overlap; smaller teams send each message straight to every member that needs it (one step)."},
    {"ISHMEM_SCAN_CHAIN_MAX", "2K",
     "Host backend: bytes (nelems times the element size) up to which scans on teams of ISHMEM_CHAIN_MIN "
     "to 8 PEs pass along the chain, in pieces of 512 bytes, one message each; larger scans take the "
     "other forms (chunked from ISHMEM_REDUCE_SCATTER_MIN). 512 or less: only scans of one piece chain."},
    {"ISHMEM_GPU_COLL_BLOCK_BYTES", "64K",
     "CUDA backend: bytes each PE moves per block of the library's collective kernels (the host-called "
     "and _on_queue collectives on the GPU heap): a larger call gets more blocks, up to one per SM."},
    {"ISHMEM_GPU_REDUCE_BLOCK_BYTES", "32K",
     "CUDA backend: as ISHMEM_GPU_COLL_BLOCK_BYTES, for the reductions and scans, which load from the "
     "peers (a load waits for its answer, so they need more blocks than stores for the same bytes)."},
    {"ISHMEM_GPU_STAGE_BYTES", "16K",
     "CUDA backend: data collectives in which one PE receives at most this much (broadcast: the "
     "array; fcollect, alltoall, reductions and scans: the team size times what one PE sends to another) "
     "go through each team's ring, in one hop: each PE stores its data, tagged with the call, straight "
     "into the others' rings, and each moves what it got into its own dest. Larger ones write into the "
     "dests directly, after a hop that says every PE has entered. At most 32K; 0: never. Every PE must "
     "use the same value."},
    {"ISHMEM_GPU_MEDIUM_BYTES", "256K",
     "CUDA backend: broadcasts too large for the ring and of at most this many bytes go through a stage "
     "in each PE's GPU memory, on the world and the first teams (slots 0-7): the root stores the array "
     "into the others' stage and flags it, and each moves it into its own dest, without waiting for "
     "the others to enter. At most 256K; 0: never. Every PE must use the same value."},
    {"ISHMEM_GPU_MEDIUM_GATHER_BYTES", "256K",
     "CUDA backend: the same for fcollect and alltoall in which one PE receives at most this much "
     "(counted as for ISHMEM_GPU_STAGE_BYTES). A call from one block copies all it received out of the "
     "stage by itself, so stream and host calls gain most and calls from a block may lose a little (the "
     "figures: docs/guide/tuning.rst). At most 256K; 0: never. Every PE must use the same value."},
    {"ISHMEM_GPU_MEDIUM_REDUCE_BYTES", "256K",
     "CUDA backend: the same for the reductions and scans (each PE receives the team size times the "
     "array). Every PE must use the same value; at most 256K; 0: never."},
    {"ISHMEM_GPU_MEDIUM_PART_BYTES", "4K",
     "CUDA backend: the least bytes of each PE's block in one part of a medium collective (see "
     "ISHMEM_GPU_MEDIUM_BYTES); a call has up to 16 parts, and a host-called or stream call runs one "
     "block per part. Every PE must use the same value."},
    {"ISHMEM_GPU_BROADCAST_PIECE_BYTES", "1M",
     "CUDA backend: broadcasts larger than a stage takes, on teams of 3 to 65 PEs, are relayed: the "
     "array is cut into pieces of at least this many bytes (at most 64 pieces), the root stores each "
     "piece into one other member's dest alone, and that member passes it on to the rest, so that no "
     "PE sends the array more than about once. 0: the root stores the whole array into every member. "
     "Every PE must use the same value."},
    {"ISHMEM_GPU_EARLY_LAUNCH", "1",
     "CUDA backend, Hopper GPUs and later: a collective or barrier kernel that the library queues on a "
     "stream right after another of its own is launched while that one still runs and waits on the GPU "
     "for it to end (a programmatic dependent launch), which saves about 1 us per call in a row. 0: each "
     "kernel is launched once the one before has ended."},
    {"ISHMEM_DEVICE", "local",
     "CUDA backend: the GPU of this PE, an ordinal among the visible devices, or local: the PE's rank "
     "on its node modulo the visible GPUs (CUDA_VISIBLE_DEVICES still applies)."},
    {"ISHMEM_WAIT_SPINS", "auto",
     "Polls (each with one CPU pause, some 10-40 ns) of a point-to-point wait (wait_until, "
     "signal_wait_until, ...) before it starts yielding the core; auto: 4096 when every PE of the "
     "node has a core, 0 (yield at once) when there are more PEs than cores."},
    {"ISHMEM_CHECK", "default",
     "default: the cheap argument checks; full: also that every symmetric range lies inside one live "
     "allocation, and that the PEs of a team agree on each collective call (routine, root, nelems, type)."},
    {"ISHMEM_HANG_TIMEOUT", "0",
     "Seconds a PE may stay blocked in a barrier, wait or collective before it prints where every PE is "
     "and stops the job; 0: never. Works with either ISHMEM_CHECK value."},
    {"ISHMEM_RUNTIME", "auto",
     "How PEs find each other when not started by ishmrun: auto (through MPI when an MPI launcher started "
     "several ranks, loading libishmem_mpi if the program did not link it; else a job of one PE) or mpi "
     "(always through MPI)."},
    {"ISHMEM_NODE_SPLIT", "hostname",
     "What makes two PEs one node, whose PEs map each other's heaps: hostname (the same host name), pe "
     "(every PE a node of its own, reaching every other through the MPI transport), a number k (every k "
     "consecutive PEs a node) or cyclic:N (N nodes, PE p on node p mod N). All but hostname test the "
     "multi-node paths on one machine; they need the MPI runtime."},
    {"ISHMEM_HIERARCHICAL", "1",
     "Multi-node jobs: 1 runs barriers, broadcasts and (where it pays) reductions, collects and fcollects of a "
     "team with several PEs on some node in two levels (shared memory within each node, the transport between "
     "one PE of each node; large broadcasts whose chain passes through a node of several PEs go down one chain of "
     "all members instead); "
     "0 runs them over the transport among all members."},
    {"ISHMEM_GPU_NODE_LEVELS", "0",
     "CUDA backend, jobs over several nodes (experimental): 1 sends device broadcasts, fcollects and collects "
     "across nodes to one member of each node, which passes them on over NVLink, and reductions as one partial "
     "per node; 0 sends every member's data to every member."},
    {"ISHMEM_MPI_PROGRESS_SLEEP_US", "1000",
     "Multi-node jobs: the longest sleep, in microseconds, of the progress thread that serves other nodes' "
     "AMOs while this PE computes; it sleeps only after some polls without work. 0: never sleeps (a core "
     "busy polling, lowest latency for AMOs, but cross-node collectives several times slower)."},
    {"ISHMEM_REMOTE_PROXY", "0",
     "Multi-node jobs on the host backend: 1 sends RMA, atomics, signals, fence and quiet to PEs of other "
     "nodes through the proxy's request ring, served in order by a thread of the PE (the path that GPU "
     "kernels take to other nodes), instead of calling the transport from the calling thread."},
    {"ISHMEM_MPI_RMA", "auto",
     "Multi-node jobs: how RMA and atomics reach the heap of a PE of another node. windows: MPI one-sided "
     "operations on a window over it; messages: requests that the target's node lands in its heap; auto: "
     "messages for a heap in GPU memory (the CUDA backend), windows otherwise."},
    {"ISHMEM_PROXY_SLOTS", "256",
     "Multi-node jobs: requests the proxy's ring holds (at least 4); a poster waits while it is full."},
    {"ISHMEM_SYMMETRIC_GLOBALS", "1",
     "Host backend: 1 makes the executable's global and static variables (data and bss) symmetric, so "
     "that they may be the remote address of any routine; 0 keeps them private (only the heap is symmetric)."},
};

}  // namespace ishmemi

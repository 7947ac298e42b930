// The tuning parameters: every size, count and spin limit at which the runtime switches algorithm
// or protocol, one entry each: the default, the ISHMEM_* variable that overrides it (nullptr: fixed
// in the build) and what it trades. Every path that uses one reads it from here; the rule that uses
// it is commented where it is applied, and docs/guide/tuning.rst lists the same entries with the
// benchmark that chose each value (tests/generator/test_tuning_table.py keeps the two in step).
// Variables keep their defaults in config_vars.h too, as ishmrun --help prints them: config.cpp
// checks at compile time that those agree with this table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ishmemi::tuning {

template <class T> struct param {
    T value;             // the default
    const char* env;     // the variable that overrides it, or nullptr
    const char* trades;  // what a larger value buys and what it costs
};

// ---- host backend, one node ----------------------------------------------------------------------

inline constexpr param<unsigned> wait_spins{
    4096, "ISHMEM_WAIT_SPINS",
    "polls of a point-to-point wait before it yields the core (auto: this with a core per PE, else 0): latency "
    "against CPU time for other threads"};
inline constexpr param<unsigned> barrier_spins{
    1024, "ISHMEM_BARRIER_SPINS",
    "polls of a collective's wait before it yields the core (auto: this with a core per PE, else 0)"};
inline constexpr param<size_t> reduce_scatter_min{
    1024, "ISHMEM_REDUCE_SCATTER_MIN",
    "bytes from which reductions and scans are chunked: more synchronization for less data read per member"};
inline constexpr param<int> chain_min{
    2, "ISHMEM_CHAIN_MIN",
    "team size from which small scans and broadcasts pass along a chain: calls in a row overlap, a lone call "
    "waits n - 1 hops"};
inline constexpr param<size_t> scan_chain_max{
    2048, "ISHMEM_SCAN_CHAIN_MAX", "bytes up to which scans pass along the chain in inbox pieces, else chunked"};
inline constexpr param<size_t> short_copy_max{
    64, nullptr, "bytes up to which copies are fixed-size moves instead of memcpy's string instructions"};
inline constexpr param<size_t> eager_bytes{
    512, nullptr,
    "bytes up to which a collective's message goes into the reader's inbox: the sender need not wait, at the "
    "cost of a copy and inbox memory"};
inline constexpr param<uint64_t> eager_depth{
    8, nullptr, "inboxes per sender: how far a sender may run ahead of a reader, against inbox memory"};
inline constexpr param<uint64_t> eager_credit{
    4, nullptr, "inboxes a blocked sender waits to have free: fewer reads of the reader's word, later restarts"};

// ---- across nodes (MPI transport) ----------------------------------------------------------------

inline constexpr param<size_t> p2p_bcast_max{
    size_t{64} << 10, nullptr, "broadcasts as our own messages up to this size, else MPI_Ibcast or the chain"};
inline constexpr param<size_t> p2p_alltoall_max{
    size_t{64} << 10, nullptr, "alltoall blocks as our own messages up to this size, else MPI_Ialltoall"};
inline constexpr param<size_t> p2p_coll_max{size_t{64} << 10, nullptr,
                                            "fcollect blocks as our own messages up to this size, else MPI_Iallgather"};
inline constexpr param<size_t> p2p_collect_max{
    size_t{128} << 10, nullptr,
    "collect blocks as our own messages up to this size, else the lengths first and MPI_Iallgatherv"};
inline constexpr param<size_t> p2p_reduce_max{size_t{1} << 30, nullptr,
                                              "reductions and scans as our own messages up to this size, else MPI's"};
inline constexpr param<int> direct_max{
    3, nullptr, "members up to which a collect sends every block straight to every member in one round"};
inline constexpr param<size_t> whole_max{
    size_t{60} << 10, nullptr, "bytes up to which a message goes whole (inside MPI's eager limit), else in pieces"};
inline constexpr param<size_t> piece_bytes{
    size_t{32} << 10, nullptr, "bytes of each eager piece of a larger message: no rendezvous, more messages"};
inline constexpr param<int> pieces_max{4, nullptr, "pieces a message may go in before it goes whole again"};
inline constexpr param<size_t> p2p_chain_max{
    size_t{256} << 10, nullptr,
    "broadcasts down a chain in eager segments up to this size: each link carries the message once, but the "
    "segments cost more than MPI_Ibcast beyond it"};
inline constexpr param<size_t> chain_short_max{
    size_t{32} << 10, nullptr,
    "broadcasts on 3 to chain_members_max members below this size go down the chain as one message instead of a "
    "binomial tree"};
inline constexpr param<int> chain_members_max{
    8, nullptr, "members up to which short broadcasts take the chain: a lone call waits n - 1 hops, not log2 n"};
inline constexpr param<size_t> leaders_chain_max{
    2048, nullptr, "on 4 or more leaders of two levels, the short chain only below this size"};
inline constexpr param<size_t> pair_whole_min{size_t{192} << 10, nullptr,
                                              "from this size a broadcast on 2 members is one rendezvous message"};
inline constexpr param<size_t> pair_whole_max{
    size_t{4} << 20, nullptr, "up to this size a broadcast on 2 members is one message, else MPI_Ibcast"};
inline constexpr param<size_t> long_segment_bytes{
    size_t{256} << 10, nullptr, "segments of the long chain (rendezvous each): fewer messages, a later start"};
inline constexpr param<size_t> long_segments_in_flight{
    4, nullptr, "a member's long-chain segments under way at once: the first ones reach the next member early"};
inline constexpr param<size_t> chain_through_min{
    size_t{512} << 10, nullptr,
    "bytes from which a broadcast goes down one chain of all members where a node lies mid-chain (or on 3-4 "
    "single-PE nodes) instead of two levels"};
inline constexpr param<size_t> halving_min{size_t{16} << 10, nullptr,
                                           "allreduce by recursive halving from this size, else recursive doubling"};
inline constexpr param<size_t> pair_halving_min{size_t{256} << 10, nullptr,
                                                "the same on 2 members, where doubling is one exchange of everything"};
inline constexpr param<size_t> ring_min{
    size_t{32} << 10, nullptr,
    "ring allreduce above this size on member counts that are not a power of two, else the fold"};
inline constexpr param<size_t> copy_early_min{
    size_t{16} << 10, nullptr, "from this size a collect's own block goes into dest while the messages fly"};
inline constexpr param<size_t> assist_min{
    size_t{512} << 10, nullptr,
    "bytes of local work from which the progress thread polls MPI meanwhile: waking it costs time"};
inline constexpr param<size_t> reduce_flat_min{
    size_t{512} << 10, nullptr,
    "where node groups save no rounds, two-level reductions only below this size: the node's passes cost more"};
inline constexpr param<size_t> reduce_rails_min{size_t{1} << 10, nullptr,
                                                "bytes from which teams with k PEs on every node reduce on k rails"};
inline constexpr param<size_t> collect_levels_min{
    size_t{256} << 10, nullptr, "bytes in all from which collects run on two levels even where leaders save no rounds"};
inline constexpr param<size_t> collect_member_max{
    size_t{192} << 10, nullptr, "bytes a member from which collects are flat again: the hand-on copies the whole dest"};
inline constexpr param<size_t> alltoall_levels_max{
    size_t{8} << 10, nullptr,
    "alltoall blocks up to which the node leaders carry their node's data: fewer messages, one connection"};
inline constexpr param<size_t> scan_node_hops_max{
    size_t{4} << 10, nullptr, "scans whose hops within a node go through inboxes up to this size, else all MPI"};
inline constexpr param<size_t> bounce_max{
    4096, nullptr, "blocking puts copied into the transport's ring up to this size: a copy instead of a round trip"};
inline constexpr param<size_t> bounce_bytes{size_t{256} << 10, nullptr,
                                            "the ring of such puts: memory against flushes when it is full"};
inline constexpr param<size_t> am_data_max{
    4096, nullptr, "bytes up to which a put-with-signal carries its data in the signal's request, not put and flush"};
inline constexpr param<size_t> am_put_whole_min{
    size_t{64} << 10, nullptr,
    "puts to a heap reached by messages from this size: one request and the data by rendezvous, not 4 KiB requests"};
inline constexpr param<size_t> am_piece_max{size_t{1} << 20, nullptr,
                                            "the most bytes one message of a large put or get on a heap reached by "
                                            "messages carries: staging memory against messages"};
inline constexpr param<size_t> strided_pack_max{
    size_t{1} << 10, nullptr,
    "element bytes up to which strided puts and gets to a heap in an MPI window move packed in messages, not as a "
    "derived datatype that MPI moves one element at a time"};
inline constexpr param<int> posts_max{64, nullptr,
                                      "posted atomics in flight before a poster waits for MPI to send the oldest"};
inline constexpr param<size_t> scratch_keep_max{
    size_t{64} << 20, nullptr, "scratch a thread's collectives keep between calls: memory against allocations"};
inline constexpr param<unsigned> mpi_lock_spins{1000, nullptr, "polls of the MPI lock before a waiter yields the core"};
inline constexpr param<long> proxy_sleep_max_ns{
    50000, nullptr, "longest nap of an idle proxy thread: CPU time against the latency of the next request"};
inline constexpr param<long> progress_sleep_us{
    1000, "ISHMEM_MPI_PROGRESS_SLEEP_US",
    "longest nap of the progress thread: CPU time against AMO latency while the target computes"};

// ---- CUDA backend --------------------------------------------------------------------------------

inline constexpr param<size_t> gpu_stage_bytes{
    size_t{16} << 10, "ISHMEM_GPU_STAGE_BYTES",
    "bytes a PE receives up to which a data collective goes through the team's ring in one hop"};
inline constexpr param<size_t> gpu_medium_bytes{
    size_t{256} << 10, "ISHMEM_GPU_MEDIUM_BYTES",
    "broadcasts up to this size go through the medium stage instead of a handshake and direct stores"};
inline constexpr param<size_t> gpu_medium_gather_bytes{size_t{256} << 10, "ISHMEM_GPU_MEDIUM_GATHER_BYTES",
                                                       "the same for fcollect and alltoall"};
inline constexpr param<size_t> gpu_medium_reduce_bytes{size_t{256} << 10, "ISHMEM_GPU_MEDIUM_REDUCE_BYTES",
                                                       "the same for the reductions and scans"};
inline constexpr param<size_t> gpu_medium_part_bytes{
    size_t{4} << 10, "ISHMEM_GPU_MEDIUM_PART_BYTES",
    "least bytes of a block in one part of a medium call: fewer parts (blocks), more work each"};
inline constexpr param<size_t> gpu_broadcast_piece_bytes{
    size_t{1} << 20, "ISHMEM_GPU_BROADCAST_PIECE_BYTES",
    "least piece of a relayed broadcast: blocks move more between fences, fewer pieces overlap"};
inline constexpr param<size_t> gpu_coll_block_bytes{size_t{64} << 10, "ISHMEM_GPU_COLL_BLOCK_BYTES",
                                                    "bytes per block of the library's collective kernels"};
inline constexpr param<size_t> gpu_reduce_block_bytes{size_t{32} << 10, "ISHMEM_GPU_REDUCE_BLOCK_BYTES",
                                                      "the same for reductions and scans, which load from peers"};
inline constexpr param<bool> gpu_early_launch{
    true, "ISHMEM_GPU_EARLY_LAUNCH", "programmatic dependent launch of the library's kernels queued back to back"};
inline constexpr param<unsigned> gpu_lone_block_threads{
    512, nullptr, "threads of the one block of a small library kernel: more stores and polls in flight"};
inline constexpr param<unsigned> lane_blocks{
    16, nullptr,
    "blocks per lane of a relayed broadcast's grid: more bytes per block between fences, fewer pieces at once"};

}  // namespace ishmemi::tuning

// What device code knows about the job, and how it learns it without relocatable device code.
//
// Every translation unit that nvcc compiles with ishmem.h gets its own copy of the state in constant
// memory (an internal-linkage __constant__ variable, below) and registers, from a static initializer,
// a host function that fills that copy. ishmem_init calls every registered function once the heap
// exists; a module registered later (a library loaded after init) is filled when it registers. So
// device entry points are ordinary inline functions of the user's own translation unit: no -rdc, no
// device link step, no static device library (see docs/guide/cuda.rst).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ishmem/impl/api.h"
#include "ishmem/impl/proxy_ring.h"

namespace ishmemi::cuda {

// A device-side argument error, written by the first failing thread and reported by the host
// (runtime/cuda/device_errors.cpp) as "ishmem: PE <n>: <routine>: <reason>".
struct error_mailbox {
    unsigned int state;  // 0 empty, 1 being written, 2 ready to report
    int code;            // device_error code
    long long a, b, c;   // the values the message names
    unsigned int block, thread;
    char routine[96];
    char param[32];
};

enum device_error : int {
    err_init = 1,      // called before ishmem_init
    err_pe,            // a: pe, b: n_pes
    err_symmetric,     // a: address, b: bytes, param
    err_nonnull,       // a: count, param
    err_sig_op,        // a: sig_op
    err_cmp,           // a: cmp
    err_positive,      // a: value, param
    err_power_of_two,  // a: value, param
    err_aligned,       // a: address, b: alignment, param
    err_concurrent,    // a: team (two callers of one PE inside a data collective on it at once)
    err_team_size,     // a: team, b: its size, c: the largest size device collectives support
    err_unreported,    // an entry point's checks failed as a whole but none reported why (a library bug)
};

// ishmemx_print from device code: messages go to the host through a ring in mapped pinned host
// memory, and the watcher (runtime/cuda/backend.cpp) prints them in ticket order through the host's
// print path. A printing thread takes a ticket from a counter in GPU memory (atomicAdd), waits while
// slot ticket % print_slots still holds the message print_slots tickets older (consumed, written by
// the host, says how many it has printed), fills the slot, and stores seq = ticket + 1 with a
// system-scope release; the host prints slot by slot once seq says the awaited ticket is there, then
// advances consumed with a release. Strings are cut to the sizes below (the text to 255 bytes).
inline constexpr unsigned print_slots = 64;
struct print_slot {
    unsigned long long seq;  // ticket + 1 of the message the slot holds, once it is complete
    long line;
    int type;  // an ishmemx_print_msg_type_t
    unsigned int block, thread;
    char file[128];  // "" when not given; else its last 127 bytes (a long path's end says most)
    char func[64];   // "" when not given
    char text[256];
};
struct print_ring {
    unsigned long long consumed;  // messages the host has printed (host writes, device reads)
    int debug;                    // ISHMEM_DEBUG as ishmem_init saw it: device code drops DEBUG otherwise
    print_slot slots[print_slots];
};

// A team as device code sees it on this PE (the host keeps the table at split and destroy): world
// PEs start, start + stride, ... (size of them), this PE at my_index; size 0 when the handle is not
// a team of this PE.
struct device_team {
    int start, stride, size, my_index;
    int spans_nodes;  // 1 when members are on other nodes (data collectives by puts: coll/nodes.cuh)
    // 1 when the team spans nodes, some node has two or more of its members, it has at most
    // node_mask_bits members and ISHMEM_GPU_NODE_LEVELS is on: broadcast, fcollect and collect then
    // send across nodes to one member of each node, which passes the data on over NVLink, and
    // reductions one partial per node (coll/nodes.cuh). Bit m of a mask stands for member m.
    int node_levels;
    static constexpr int node_mask_bits = 128;
    unsigned long long node_firsts[2];  // each node's first member in team order
    unsigned long long my_node[2];      // the members on this PE's node, itself included
};

// Sets t's node masks and node_levels (host side, when the team is made): node_of(m) is member m's
// node (any numbering), mine this PE's. Two levels only where some node has two or more members
// (with one member a node there is nothing to pass on); t.size at most node_mask_bits.
template <class NodeOf> inline void set_node_levels(device_team& t, NodeOf node_of, int mine) {
    bool shared = false;
    for (int m = 0; m < t.size; ++m) {
        const int node = node_of(m);
        bool first = true;
        for (int j = 0; j < m && first; ++j) first = node_of(j) != node;
        const unsigned long long bit = 1ull << (m & 63);
        if (first)
            t.node_firsts[m >> 6] |= bit;
        else
            shared = true;
        if (node == mine) t.my_node[m >> 6] |= bit;
    }
    t.node_levels = shared ? 1 : 0;
}

// The counters of one team slot in each PE's GPU sync region (after its user heap, mapped like it):
// they only grow, so consecutive operations need no reset; zeroed by the host when a team takes
// the slot.
//   Barriers - epoch: barriers this PE has completed on the slot; arrived[r]: barriers for which
//   this PE's round-r partner has signalled.
//   Data collectives (cuda/collectives.cuh), numbered by calls on every member alike - ready[j]:
//   the last call that member j has entered (its source may be read, its dest written); done[j]:
//   the last call in which member j has finished with this PE's buffers; counts[j]: member j's
//   count in collect, written before its ready. Members write a peer's entries at their own index,
//   so each PE polls its own memory only.
//   Small data collectives go through a ring instead: members store their data straight into each
//   other's ring as 8-byte words of 4 data bytes and a nonzero 32-bit tag made from the call's
//   number, so the data is its own flag: a receiver polls the words until they carry its tag, with
//   no flag and no fence in between, and moves the data into its own dest (one hop, no wait for a
//   member to enter). Every member takes the same span of the ring for a call, calls in turn; when a call
//   does not fit in what is left, every member zeroes the used part of its ring (it has read all
//   it was sent), a team barrier follows, and the ring starts over. ring_used (mine alone): words
//   of the ring that calls since the last such barrier took.
struct gpu_sync_slot {
    static constexpr int max_rounds = 32;
    static constexpr int max_members = 128;  // the largest team that device data collectives serve
    struct alignas(64) counter {
        unsigned long long value;
    };
    counter epoch;
    counter arrived[max_rounds];
    counter calls;  // data collectives this PE has begun on the slot
    counter busy;   // 1 while a caller of this PE is inside one (a second caller is an error)
    alignas(64) unsigned long long ready[max_members];
    alignas(64) unsigned long long done[max_members];
    alignas(64) unsigned long long counts[max_members];
    // A large broadcast on three or more members (coll/broadcast.cuh, broadcast_relayed): the root sets
    // pieces[p] at piece p's carrier to the call's number once the piece is in the carrier's dest;
    // piece_blocks[p] counts the blocks of one of the library's grids that have stored their share
    // of piece p, so that the last one sets the flag (back to 0 then).
    static constexpr int max_pieces = 64;
    alignas(64) unsigned long long pieces[max_pieces];
    alignas(64) unsigned piece_blocks[max_pieces];
    counter ring_used;
    static constexpr size_t ring_words = 16384;  // 128 KiB of ring words: 64 KiB of data
    alignas(128) unsigned long long ring[ring_words];
};

// Medium data collectives (larger than the ring takes, up to ISHMEM_GPU_MEDIUM_BYTES received)
// go through a stage: one per team slot below medium_slots (the predefined teams and the first
// teams made), after the sync slots. The data of a call is cut into up to `parts` byte ranges of
// every member's block (part p of a grid kernel is its block p, so blocks never wait for each
// other); for each part a member stores its range into the receivers' stage, then one system fence
// and flags[p][me] = the call's number at each; a receiver waits for the flags of its parts and
// moves the ranges into its own dest, then acks[p][me] = the number at every member. Calls
// alternate between two halves of the stage, so a sender only waits for the acks of the call two
// back (long done, as a rule): no member waits for another to enter, nobody writes another's dest.
// Every call counts on every part (part_calls[p]; those without data too), so all of a call's
// parts carry one number, whoever handles them; and acks come from every part, so an ack of every
// part says the whole half was read, however the call before cut it.
struct gpu_medium_slot {
    static constexpr int parts = 16;
    static constexpr size_t half_bytes = 256 * 1024;  // what one call may bring to one PE
    using counter = gpu_sync_slot::counter;
    counter part_calls[parts];  // mine alone: medium calls on the slot, counted by each part's handler
    alignas(64) unsigned long long flags[parts][gpu_sync_slot::max_members];
    alignas(64) unsigned long long acks[parts][gpu_sync_slot::max_members];
    alignas(128) char stage[2][half_bytes];
};
inline constexpr int medium_slots = 8;
// Whether [a, a + bytes) lies in the heap [lo, lo + size) (a null address with no bytes passes too):
// the device's address check (cuda/common.cuh, ok_symmetric). The address is compared with bounds
// computed without it, so that where it comes from a load (a pointer chase of g calls) one compare,
// not a subtraction and two compares, stands between it and the check's branch.
ISHMEM_HD constexpr bool in_heap(uintptr_t a, size_t bytes, uintptr_t lo, size_t size) {
    return ((bytes <= size) & (a >= lo) & (a <= lo + (size - bytes))) | ((bytes == 0) & (a == 0));
}
// Where a member's block starts after the one before in a stage half: its bytes, 16-byte aligned.
ISHMEM_HD inline size_t medium_stride(size_t bytes) { return (bytes + 15) / 16 * 16; }
// The bytes of part p of each member's block of `bytes` (ranges of 16-byte multiples of at least
// `part_min` bytes); host and device cut alike.
ISHMEM_HD inline size_t medium_chunk(size_t bytes, size_t part_min) {
    size_t c = (bytes + gpu_medium_slot::parts - 1) / gpu_medium_slot::parts;
    return medium_stride(c < part_min ? part_min : c);
}
ISHMEM_HD inline unsigned medium_parts_with_data(size_t bytes, size_t part_min) {
    const size_t c = medium_chunk(bytes, part_min);
    return bytes == 0 ? 1u : static_cast<unsigned>((bytes + c - 1) / c);
}
// Whether a data collective on team slot `slot` goes through the medium stage, given what it puts
// in one PE's half: `blocks` blocks of `block_bytes` (the gathers: one per member; broadcast: one).
// The caller has ruled out the ring first.
ISHMEM_HD inline bool medium_takes(int slot, unsigned limit, size_t blocks, size_t block_bytes) {
    return slot >= 0 && slot < medium_slots && blocks * medium_stride(block_bytes) <= limit;
}

// A relayed broadcast (coll/broadcast.cuh, broadcast_relayed): whether a team of n members relays,
// and how the array is cut into pieces of at least `least` bytes (ISHMEM_GPU_BROADCAST_PIECE_BYTES;
// 0: no relay), each carried by one of the n - 1 members other than the root. Host and device cut
// alike.
struct relay_plan {
    size_t piece;  // bytes of each piece: a 16-byte multiple (the last pieces shorter, or empty)
    int count;     // pieces: a multiple of n - 1, at most gpu_sync_slot::max_pieces
};
ISHMEM_HD inline bool relays(int n, size_t least) { return least != 0 && n >= 3 && n - 1 <= gpu_sync_slot::max_pieces; }
ISHMEM_HD inline relay_plan plan_relay(size_t bytes, int n, size_t least) {
    const size_t carriers = static_cast<size_t>(n - 1);
    const size_t most_each = static_cast<size_t>(gpu_sync_slot::max_pieces) / carriers;
    size_t each = ((bytes + least - 1) / least + carriers - 1) / carriers;  // pieces per carrier
    each = each < 1 ? 1 : each > most_each ? most_each : each;
    const size_t count = carriers * each;
    return {medium_stride((bytes + count - 1) / count), static_cast<int>(count)};
}

struct device_state {
    int initialized;
    int device;  // this PE's GPU: the setter makes it current before copying
    int my_pe;
    int n_pes;
    char* heap_base;                    // my heap, in my address space
    size_t heap_size;                   // user heap bytes
    long long peer_stride;              // PE pe's heap is at heap_base + (pe - my_pe) * peer_stride
    error_mailbox* mailbox;             // host-mapped: the host watcher reads it
    unsigned long long* any_starts;     // 64 start indices of the _any scans (GPU memory)
    print_ring* prints;                 // host-mapped; null before init and after finalize
    unsigned long long* print_tickets;  // the next print ticket (GPU memory)
    int finalized;                      // set by ishmem_finalize: a later call says "after ishmem_finalize"
    char* sync_base;  // my GPU sync region (gpu_sync_slot per team slot); a peer's at + (pe - my_pe) * peer_stride
    const device_team* teams;  // teams_max entries (GPU memory)
    int teams_max;
    unsigned stage_limit;          // ISHMEM_GPU_STAGE_BYTES: data collectives in which one PE
                                   // receives at most this much go through the ring
    char* medium_base;             // my medium stages (gpu_medium_slot per slot below medium_slots);
                                   // a peer's at + (pe - my_pe) * peer_stride
    unsigned medium_limit;         // ISHMEM_GPU_MEDIUM_BYTES: larger broadcasts in which one PE
                                   // receives at most this much go through the stage (0: none)
    unsigned medium_gather_limit;  // ISHMEM_GPU_MEDIUM_GATHER_BYTES: the same for fcollect and alltoall
    unsigned medium_reduce_limit;  // ISHMEM_GPU_MEDIUM_REDUCE_BYTES: and for the reductions and scans
    unsigned medium_part;          // ISHMEM_GPU_MEDIUM_PART_BYTES: the least bytes of a part
    unsigned broadcast_piece;      // ISHMEM_GPU_BROADCAST_PIECE_BYTES: the least bytes of a piece of a
                                   // relayed broadcast (0: the root stores into every member)
    // A job over several nodes (cuda/remote.cuh); both null on one node.
    ishmemi::proxy::ring_header* proxy;  // this PE's proxy ring, in mapped pinned host memory
    unsigned long long* proxy_tickets;   // the ring's ticket counter (GPU memory)
    const unsigned char* pe_remote;      // n_pes flags (GPU memory): 1 where the PE is on another node
};

using device_state_setter = void (*)(const device_state*);

// Adds a module's setter; calls it at once when ishmem is already initialized on the GPU backend.
ISHMEM_API void register_device_state(device_state_setter set);

}  // namespace ishmemi::cuda

#if defined(__CUDACC__)
#include <cuda_runtime.h>

namespace ishmemi::dev {
namespace {
// This translation unit's copy of the state (internal linkage: one per module).
__constant__ ishmemi::cuda::device_state dstate;

#if !defined(__CUDA_ARCH__)
// Runs in this module's CUDA runtime (the program's own), which may not know yet which GPU the PE
// uses: make it current first.
void set_dstate(const ishmemi::cuda::device_state* s) {
    if (s->device >= 0) cudaSetDevice(s->device);
    cudaMemcpyToSymbol(dstate, s, sizeof *s);
}
[[maybe_unused]] const bool dstate_registered = (ishmemi::cuda::register_device_state(&set_dstate), true);
#endif
}  // namespace
}  // namespace ishmemi::dev
#endif

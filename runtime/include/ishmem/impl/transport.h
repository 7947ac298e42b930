// PEs on other nodes (docs/design.rst, 'Scale-out'). This PE maps the heaps of the PEs of its node; a PE whose heap it
// does not map (state.peer_base[pe] is null) is remote, and every operation on it goes through the
// transport that a scale-out library (libishmem_mpi) gives ishmem_init. Addresses passed to the
// transport are symmetric addresses as this PE sees them (its heap, its internal region, its
// symmetric globals); the transport turns them into the target's. On a job of one node `remote` is
// null and the operations never look further than the branch on peer_base.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ishmem/impl/runtime.h"

namespace ishmemi {

struct team_t;

struct transport {
    // Contiguous transfers. A blocking put returns when source may be reused, a blocking get when
    // dest holds the data; the nbi forms complete at quiet.
    virtual void put(void* dest, const void* source, size_t bytes, int pe, bool nbi) = 0;
    virtual void get(void* dest, const void* source, size_t bytes, int pe, bool nbi) = 0;
    // count elements of elem bytes, element k from source + k * sstride to dest + k * dstride
    // (strides in bytes, positive); blocking, as put and get.
    virtual void put_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem,
                             size_t count, int pe) = 0;
    virtual void get_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem,
                             size_t count, int pe) = 0;
    // One atomic operation on the word of `size` (4 or 8) bytes at dest on pe, done by pe's node with
    // the same CPU atomics that PEs of that node use, so that it is atomic with respect to them too.
    // Returns the old value; complete (and visible to pe's waits) when it returns. A store is a
    // release, and its data ordered after every put this PE completed before.
    virtual uint64_t amo(rmw_op op, void* dest, unsigned size, uint64_t value, uint64_t cond, int pe) = 0;
    // A non-fetching one (store, add, and, or, xor): sent, not awaited. pe does this PE's atomics on
    // it in the order they were sent; it is complete at the next quiet or fence, and before a later
    // get from any PE of another node returns (flush completes puts only).
    virtual void amo_post(rmw_op op, void* dest, unsigned size, uint64_t value, int pe) = 0;
    // A put-with-signal to pe as one such non-fetching atomic that carries the data, which pe stores
    // before it updates the signal (set, or add when add): true when done so, false when the data is
    // too large for it (then the caller puts, flushes and signals).
    virtual bool put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, bool add,
                            int pe) = 0;
    // flush: completes earlier puts to pe; fence: orders earlier puts to each PE before later ones;
    // quiet: completes them all.
    virtual void flush(int pe) = 0;
    virtual void fence() = 0;
    virtual void quiet() = 0;
    // Serves what other PEs asked of this one (their AMOs) and drives the communication library; called
    // from every waiting loop, cheap when there is nothing to do.
    virtual void progress() = 0;
    // Starts whatever serves other PEs while this one computes (a progress thread), once
    // ishmem_init is done with its bootstrap; until then the waiting loops serve.
    virtual void start_progress_thread() = 0;
    // held = true keeps that thread out of the communication library until held = false, for a
    // PE that runs only code of that library meanwhile and wants it measured as a program without
    // ishmem would see it (bench_coll's MPI peer: the thread's polls sped Open MPI's chains up, stop
    // 40). The waiting loops still serve, so nothing that ishmem waits for can hang on it.
    virtual void hold_progress_thread(bool held) = 0;

    // Teams: a split is collective over the parent's members; this PE's new team (in slot) holds the
    // members that pass the same color, ordered by key; color -1: this PE is in none. destroy is
    // local. The slot of a team's node part (node_part_slot, teams.h) holds the team's node
    // leaders: the middle level of its hierarchical collectives.
    virtual void team_split(int parent_slot, int slot, int color, int key) = 0;
    virtual void team_destroy(int slot) = 0;
    // Collectives over a team with members on several nodes (same arguments as gpu::collective,
    // gpu::reduction; the caller has checked them). barrier: quiet first when `complete` is set.
    // collective returns the bytes it wrote into dest, alike on every member (a collect's total).
    virtual size_t collective(coll_kind kind, int team, void* dest, const void* source, size_t bytes, int root) = 0;
    // A broadcast down a chain of all the team's members, in member order from the root, in long
    // segments: for large messages whose chain passes through a node of several members, so that
    // one of them receives from the node before while another sends on to the node after
    // (collectives.h says when). Arguments as collective's.
    virtual void broadcast_chain(int team, void* dest, const void* source, size_t bytes, int root) = 0;
    // A collect whose blocks' lengths every member knows (bytes_of[i]: member i's), which it need
    // not exchange first; source may lie in dest.
    virtual void collect_known(int team, void* dest, const void* source, const size_t* bytes_of) = 0;
    // The rounds of messages in which collective(coll_collect) and collect_known move every block to
    // every member of a team of `members` (collectives.h compares the leaders' with all members').
    virtual int collect_rounds(size_t members) const = 0;
    // An alltoall whose blocks' lengths every member knows: this member sends out_bytes[j] bytes
    // from out + out_at[j] to every other member j and receives in_bytes[j] bytes from it into
    // in + in_at[j], all at once (nothing to or from itself). The buffers may be private memory.
    virtual void exchange_blocks(int team, void* in, const size_t* in_at, const size_t* in_bytes, const void* out,
                                 const size_t* out_at, const size_t* out_bytes) = 0;
    // One message between two members of the team, as a hop of a chain: send_to_member returns when
    // buf may be reused, receive_from_member when buf holds the message (of the length the caller
    // knows). Private memory is fine.
    virtual void send_to_member(int team, int to, const void* buf, size_t bytes) = 0;
    virtual void receive_from_member(int team, int from, void* buf, size_t bytes) = 0;
    virtual void reduction(int op, int scan, elem_kind type, int team, void* dest, const void* source,
                           size_t nelems) = 0;
    virtual void barrier(int team, bool complete) = 0;
    virtual ~transport() = default;
};

// The transport to the PEs of other nodes; null when every PE is on this node.
extern ISHMEM_API transport* remote;

// True when the transport reaches the user heap of PEs of other nodes by messages that the target's
// node lands (with gpu::copy and gpu::rmw where the heap is GPU memory), not by one-sided operations
// on a window over it: ISHMEM_MPI_RMA (auto: when the heap is GPU memory).
ISHMEM_API bool remote_heap_by_messages();

// True when pe is on another node (its heap is not mapped here).
inline bool is_remote(int pe) { return state.peer_base[pe] == nullptr; }

}  // namespace ishmemi

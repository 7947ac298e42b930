// barrier_all / sync_all: a dissemination barrier over counters in the PEs' internal regions; over
// nodes, the same within each node around the transport's barrier among one PE per node.
#include <unistd.h>

#include <atomic>

#include "control.h"
#include "ishmem/impl/collectives.h"
#include "ishmem/impl/sync.h"

namespace ishmemi {

std::atomic<size_t> any_scan_table[size_t{1} << any_scan_table_bits];

namespace {

barrier_slot* slot_at(int pe, size_t offset) { return reinterpret_cast<barrier_slot*>(internal_base(pe) + offset); }

}  // namespace

// Waits until *word >= target; the partner's status turns a would-be hang into an error when it has
// left the job (finalized or exited) without signalling. partner < 0: no such check.
void wait_at_least(uint64_t* word, uint64_t target, int partner, const char* routine) {
    backoff b;
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < target) {
        if (!b.pause() || partner < 0 || !internal_base(partner)) continue;  // (another node's: mpirun watches it)
        uint64_t s = status_of(partner);
        if (s == pe_running || __atomic_load_n(word, __ATOMIC_ACQUIRE) >= target) continue;
        // A partner that failed (exit status != 0) is the cause the launcher should name: give it
        // the time to notice and stop the job before this PE reports the consequence.
        usleep(300 * 1000);
        fatal(routine, "PE %d %s while this PE waits for it in a collective", partner,
              s == pe_finalized ? "called ishmem_finalize" : "exited without ishmem_finalize");
    }
}

void barrier_pes(int start, int stride, int size, int my_index, size_t slot_offset, const char* routine) {
    if (size <= 1) return;
    barrier_slot* mine = slot_at(state.my_pe, slot_offset);
    uint64_t target = ++mine->epoch.value;
    // Round r: signal the member 2^r ahead, wait for the one 2^r behind. Each arrived[r] has one
    // writer (the member 2^r behind), which stores the epoch it reached: a plain release store.
    int round = 0;
    for (int dist = 1; dist < size; dist <<= 1, ++round) {
        int to = start + ((my_index + dist) % size) * stride;
        int from = start + ((my_index - dist + size) % size) * stride;
        __atomic_store_n(&slot_at(to, slot_offset)->arrived[round].value, target, __ATOMIC_RELEASE);
        wait_at_least(&mine->arrived[round].value, target, from, routine);
    }
}

void barrier_over_nodes(ishmem_team_t team, bool completing, const char* routine) {
    const node_groups& g = team_nodes[static_cast<size_t>(team)];
    if (g.part < 0) return remote->barrier(team, completing);
    if (completing) remote->quiet();  // every PE completes its own; the barriers below order the rest
    // The leader enters the transport's barrier once every member of its node has arrived, and its
    // node leaves once it is out: so every member has arrived before any leaves.
    const team_t& node = teams[g.part];
    team_barrier(node, g.part, routine);
    if (node.my_index == 0) remote->barrier(g.part, false);
    team_barrier(node, g.part, routine);
}

namespace impl {

void barrier_all(const char* routine) {
    coll::watched_call wc(coll::alone{}, ISHMEM_TEAM_WORLD, routine, -1, UINT64_MAX, 0, nullptr);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // quiet: every put/AMO is complete on return
    if (teams[ISHMEM_TEAM_WORLD].spans_nodes) return barrier_over_nodes(ISHMEM_TEAM_WORLD, true, routine);
    barrier_pes(0, 1, state.n_pes, state.my_pe, world_barrier_offset, routine);
}

void barrier_all() { barrier_all("ishmem_barrier_all"); }

void sync_all() {
    coll::watched_call wc(coll::alone{}, ISHMEM_TEAM_WORLD, "ishmem_sync_all", -1, UINT64_MAX, 0, nullptr);
    if (teams[ISHMEM_TEAM_WORLD].spans_nodes) return barrier_over_nodes(ISHMEM_TEAM_WORLD, false, "ishmem_sync_all");
    barrier_pes(0, 1, state.n_pes, state.my_pe, world_barrier_offset, "ishmem_sync_all");
}

}  // namespace impl
}  // namespace ishmemi

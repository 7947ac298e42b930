// The team table, team splits (slot agreement over the parent) and team destruction.
#include "ishmem/impl/teams.h"

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "config.h"
#include "control.h"
#include "gpu_backend.h"
#include "ishmem/impl/collectives.h"
#include "ishmem/impl/contexts.h"
#include "nodes.h"

namespace ishmemi {

team_t* teams = nullptr;
int teams_max = 0;
std::vector<node_groups> team_nodes;

namespace {

constexpr int predefined_teams = 3;  // WORLD, SHARED, NODE
constexpr size_t bitmap_words = (team_slots_max + 63) / 64;

// Where split publishes the calling PE's free-slot bitmap for the parent's members to read.
uint64_t* free_bitmap_of(int pe) { return reinterpret_cast<uint64_t*>(internal_base(pe) + internal_scratch_offset); }
static_assert(bitmap_words * sizeof(uint64_t) <= internal_scratch_size);

// Bit 0 of the bitmap (the world team's slot, never free) carries whether this PE's arguments of
// the split are valid: the same AND that finds the common free slots tells every member whether
// all of them are, so that all fail alike and none waits for a member that gave up.
constexpr uint64_t args_ok_bit = 1;
static_assert(ISHMEM_TEAM_WORLD == 0);

void publish_free_slots(bool args_ok) {
    uint64_t* mine = free_bitmap_of(state.my_pe);
    for (size_t w = 0; w < bitmap_words; ++w) mine[w] = 0;
    for (int s = predefined_teams; s < teams_max; ++s)
        if (!teams[s].valid) mine[s / 64] |= uint64_t{1} << (s % 64);
    if (args_ok) mine[0] |= args_ok_bit;
}

team_t make_team(int start, int stride, int size, int my_index, const ishmem_team_config_t* config, long mask) {
    team_t t{true, start, size == 1 ? 1 : stride, size, my_index, {0}, 0, 0, 0, 0};
    if (config && (mask & ISHMEM_TEAM_NUM_CONTEXTS)) t.config.num_contexts = config->num_contexts;
    for (int i = 0; i < size; ++i) t.spans_nodes = t.spans_nodes || is_remote(t.world_pe(i));
    return t;
}

// The PEs of this PE's node as a team, when they are a strided set of the world (as mpirun's usual
// placements make them); else this PE alone.
team_t node_team() {
    std::vector<int> pes;
    for (int pe = 0; pe < state.n_pes; ++pe)
        if (node_of(pe) == node_of(state.my_pe)) pes.push_back(pe);
    const int size = static_cast<int>(pes.size()), stride = size > 1 ? pes[1] - pes[0] : 1;
    for (int i = 1; i < size; ++i)
        if (pes[i] - pes[i - 1] != stride) return make_team(state.my_pe, 1, 1, 0, nullptr, 0);
    int my_index = 0;
    while (pes[my_index] != state.my_pe) ++my_index;
    return make_team(pes[0], stride, size, my_index, nullptr, 0);
}

// The node groups of team t (teams.h), the same on every PE that computes them, member of t or
// not; part stays -1 and group_of empty where the collectives stay flat: one node, hierarchy off
// (ISHMEM_HIERARCHICAL=0), a group that is not an arithmetic run, or no group of two members.
node_groups plan_node_groups(const team_t& t) {
    node_groups g;
    if (!remote || !config.hierarchical) return g;  // (not t.spans_nodes: it depends on the PE that asks)
    std::vector<int> group_by_node(static_cast<size_t>(state.n_pes), -1);
    g.group_of.resize(static_cast<size_t>(t.size));
    bool runs = true;
    int largest = 0;
    for (int i = 0; i < t.size; ++i) {
        int& group = group_by_node[static_cast<size_t>(node_of(t.world_pe(i)))];
        if (group < 0) {
            group = static_cast<int>(g.first.size());
            g.first.push_back(i);
            g.step.push_back(1);
            g.count.push_back(0);
        }
        const size_t k = static_cast<size_t>(group);
        if (g.count[k] == 1) g.step[k] = i - g.first[k];
        runs = runs && i == g.first[k] + g.count[k] * g.step[k];
        largest = std::max(largest, ++g.count[k]);
        g.group_of[static_cast<size_t>(i)] = group;
    }
    if (!runs || largest < 2 || g.first.size() < 2) return node_groups{};
    g.contiguous = std::all_of(g.step.begin(), g.step.end(), [](int s) { return s == 1; });
    g.uniform = std::all_of(g.count.begin(), g.count.end(), [&](int c) { return c == g.count[0]; });
    return g;
}

// ---- a split where a member passed a bad parent handle ----------------------------------------
// A PE whose parent handle is no team there cannot take part in its parent's agreement: it does
// not know the members. It counts the failed call in its control block instead
// (report_bad_parent_team). The members that passed a good handle enter the split by raising
// their count of splits of the parent (team_slot::splits), then wait for every other member either
// to enter too or to announce such a failure (enter_split): all of them then fail alike, and none
// waits for ever. One node only: a PE of another node is reached through the transport's
// collectives, which a PE without the handle cannot join.

uint64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);  // one clock for every PE of the node
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

std::vector<uint64_t> bad_splits_seen;           // by world PE: its announcements this PE has looked at
std::vector<std::vector<uint64_t>> split_skips;  // by slot, by member: splits of the parent it failed
std::vector<uint64_t> split_ended_ns;            // by slot: when this PE's last split of the parent ended

// The state in bad_split_claim's low bits: the slot + 1 of the parent whose split took the
// announcement, or withdrawn (nobody took it in time: the PE has returned, and a stale
// announcement must not fail a later split).
constexpr uint64_t claim_withdrawn = 0xffff;
static_assert(team_slots_max < claim_withdrawn);

// Whether member pe announced a failed split that belongs to this split of parent slot `team`:
// one that a member of this split claimed (possibly this PE, now: while pe has not entered the
// split), made after the parent was made here.
bool announced_for(int pe, ishmem_team_t team, bool entered) {
    control_block* c = control(pe);
    const uint64_t n = __atomic_load_n(&c->bad_splits, __ATOMIC_ACQUIRE);
    uint64_t& seen = bad_splits_seen[static_cast<size_t>(pe)];
    if (n <= seen) return false;
    const uint64_t mine = n << 16 | static_cast<uint64_t>(team + 1);
    uint64_t claim = __atomic_load_n(&c->bad_split_claim, __ATOMIC_ACQUIRE);
    if (claim >> 16 != n) {  // still open: pe waits in its failed call for a split that needs it
        if (entered || __atomic_load_n(&c->bad_split_ns, __ATOMIC_RELAXED) < split_ended_ns[static_cast<size_t>(team)])
            return false;
        if (!__atomic_compare_exchange_n(&c->bad_split_claim, &claim, mine, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            claim = __atomic_load_n(&c->bad_split_claim, __ATOMIC_ACQUIRE);  // withdrawn, or taken
        else
            claim = mine;
        if (claim >> 16 != n) return false;  // a newer announcement: looked at on the next poll
    }
    seen = n;
    return claim == mine;
}

// Enters a split of parent (slot `team`) on one node: returns -1 once every member has entered it,
// or the first member (world PE) that announced instead that its parent handle was bad.
int enter_split(const team_t& parent, ishmem_team_t team, const char* routine) {
    team_slot* mine = team_slot_of(state.my_pe, team);
    const uint64_t seq = mine->splits + 1;
    __atomic_store_n(&mine->splits, seq, __ATOMIC_RELEASE);  // after publish_free_slots' stores
    std::vector<uint64_t>& skips = split_skips[static_cast<size_t>(team)];
    skips.resize(static_cast<size_t>(parent.size), 0);
    call_info ci{};  // the hang watchdog's view of the wait
    ci.routine = routine;
    ci.team = team;
    ci.root = ci.cmp = -1;
    ci.nelems = UINT64_MAX;
    call_scope scope(ci);
    int bad = -1;
    for (int i = 0; i < parent.size; ++i) {
        if (i == parent.my_index) continue;
        const int pe = parent.world_pe(i);
        const uint64_t want = seq - skips[static_cast<size_t>(i)];
        const uint64_t* theirs = &team_slot_of(pe, team)->splits;
        for (backoff b;; b.pause()) {
            // An announcement first: after it, a call of the same PE may already be the next split.
            const bool entered = __atomic_load_n(theirs, __ATOMIC_ACQUIRE) >= want;
            if (announced_for(pe, team, entered)) {
                ++skips[static_cast<size_t>(i)];  // its count of splits of the parent stays one behind
                if (bad < 0) bad = pe;
                break;
            }
            if (entered) break;
            const uint64_t st = status_of(pe);
            if (st != pe_running && __atomic_load_n(theirs, __ATOMIC_ACQUIRE) < want)
                fatal(routine, "PE %d %s while this PE waits for it in a collective", pe,
                      st == pe_finalized ? "called ishmem_finalize" : "exited without ishmem_finalize");
        }
    }
    return bad;
}

// Stamped before a barrier that every member of the parent passes, so that no member can announce
// a failure of the next split before it (end_split in agree_on_slots).
void end_split(ishmem_team_t team) { split_ended_ns[static_cast<size_t>(team)] = monotonic_ns(); }

// The message of the members that passed a good parent when one passed a bad one (it says why).
void report_bad_parent_elsewhere(const char* routine, ishmem_team_t parent_team, int bad_pe) {
    warn(routine,
         "PE %d called it with a parent team handle that is no team there (parent team %d here); no team is made "
         "on any member",
         bad_pe, parent_team);
}

// Collective over parent: agrees on `count` slots free on every member of the parent (the lowest
// ones, in order), so that each new team can take one, and on whether every member's arguments are
// valid (args_ok here). Returns agreed, or on every PE alike bad_args (some member's arguments are
// bad; *bad_pe: the first such member) or no_slots, or on one node bad_parent (a member passed no
// team as the parent; *bad_pe: the first such member). Uses the parent's barrier and the scratch
// area (a barrier before anyone rewrites it).
enum class split_agreement { agreed, bad_args, no_slots, bad_parent };
split_agreement agree_on_slots(const team_t& parent, ishmem_team_t parent_handle, int count, int* slots,
                               const char* routine, bool args_ok, int* bad_pe) {
    *bad_pe = -1;
    std::vector<uint64_t> common(bitmap_words, ~uint64_t{0});
    publish_free_slots(args_ok);
    if (!parent.spans_nodes && (*bad_pe = enter_split(parent, parent_handle, routine)) >= 0)
        return split_agreement::bad_parent;  // no barrier: the member without the handle takes no part
    if (parent.spans_nodes) {
        // Members on other nodes: an AND-reduction through the transport.
        remote->reduction(coll::op_and, 0, elem_u64, parent_handle, common.data(), free_bitmap_of(state.my_pe),
                          bitmap_words);
        if (!(common[0] & args_ok_bit)) {  // which member: a second reduction, on this failure path only
            const int64_t mine = args_ok ? INT64_MAX : state.my_pe;
            int64_t first = INT64_MAX;
            remote->reduction(coll::op_min, 0, elem_i64, parent_handle, &first, &mine, 1);
            if (first != INT64_MAX) *bad_pe = static_cast<int>(first);
        }
    } else {
        // (entered by enter_split: every member has published)
        for (int i = 0; i < parent.size; ++i) {
            const uint64_t* theirs = free_bitmap_of(parent.world_pe(i));
            for (size_t w = 0; w < bitmap_words; ++w) common[w] &= __atomic_load_n(theirs + w, __ATOMIC_RELAXED);
            if (*bad_pe < 0 && !(__atomic_load_n(theirs, __ATOMIC_RELAXED) & args_ok_bit)) *bad_pe = parent.world_pe(i);
        }
        end_split(parent_handle);
        team_barrier(parent, parent_handle, routine);  // all have read the bitmaps before the next split
    }
    if (!(common[0] & args_ok_bit)) return split_agreement::bad_args;
    int found = 0;
    for (int s = predefined_teams; s < teams_max && found < count; ++s)
        if (common[s / 64] >> (s % 64) & 1) slots[found++] = s;
    return found == count ? split_agreement::agreed : split_agreement::no_slots;
}

// The other members' message when one member's arguments of a split were bad (it says why itself).
void report_bad_split_elsewhere(const char* routine, ishmem_team_t parent_team, int bad_pe, bool args_ok) {
    if (!args_ok) return;
    if (bad_pe >= 0)
        warn(routine, "the arguments of PE %d do not fit parent team %d; no team is made on any member", bad_pe,
             parent_team);
    else
        warn(routine, "the arguments of another member do not fit parent team %d; no team is made on any member",
             parent_team);
}

// Installs t in slot on the calling PE with a zeroed sync slot. The caller ends with a barrier over
// the parent, so no member signals into the slot before every member has zeroed its copy.
void install(int slot, const team_t& t) {
    teams[slot] = t;
    split_skips[static_cast<size_t>(slot)].clear();
    split_ended_ns[static_cast<size_t>(slot)] = monotonic_ns();  // older announcements are not for it
    std::memset(static_cast<void*>(team_slot_of(state.my_pe, slot)), 0, sizeof(team_slot));
    if (heap_on_gpu()) gpu_team_set(slot, &teams[slot]);  // kernels may use the team once the split returns
    if (slot < eager_slots)
        for (uint64_t op = 0; op < eager_depth; ++op)
            for (int s = 0; s < eager_members; ++s) eager_inbox(state.my_pe, slot, op, s)->seq = 0;
}

// Gives team (in slot `team`) its node part when it has node groups g (plan_node_groups) and its
// part slot exists: the team of this PE's group in node_part_slot(team), and the transport the
// leaders' communicator there; where the groups are of one size and the rail slot exists, the
// rails' communicators too (node_groups::rail). Collective over parent (which spans nodes),
// members of the team or not (member false); every PE decides alike. Before the barrier that ends
// the split (install).
void install_node_part(ishmem_team_t parent, ishmem_team_t team, node_groups& g, bool member) {
    const int part = node_part_slot(team), rail = g.uniform ? node_rail_slot(team) : -1;
    if (g.group_of.empty() || part < 0) return;
    if (!member) {
        remote->team_split(parent, part, -1, 0);
        if (rail >= 0) remote->team_split(parent, rail, -1, 0);
        return;
    }
    const team_t& t = teams[team];
    const size_t k = static_cast<size_t>(g.my_group = g.group_of[static_cast<size_t>(t.my_index)]);
    const int index = g.index_in_group(t.my_index);
    remote->team_split(parent, part, t.my_index == g.first[k] ? 0 : -1, t.my_index);
    install(part, make_team(t.world_pe(g.first[k]), g.step[k] * t.stride, g.count[k], index, nullptr, 0));
    g.part = part;
    if (rail >= 0) {
        remote->team_split(parent, rail, index, g.my_group);
        g.rail = rail;
    }
    team_nodes[static_cast<size_t>(team)] = std::move(g);
}

}  // namespace

void teams_init() {
    teams_max = config.teams_max < team_slots_max ? config.teams_max : team_slots_max;
    if (config.teams_max > team_slots_max && state.my_pe == 0)
        warn("ishmem_init", "ISHMEM_TEAMS_MAX=%d is more than the %d team slots the internal region holds; using %d",
             config.teams_max, team_slots_max, team_slots_max);
    // Slots teams_max and up hold the node parts of the teams (node_part_slot), where there is room.
    teams = new team_t[static_cast<size_t>(team_slots_max)]();
    bad_splits_seen.assign(static_cast<size_t>(state.n_pes), 0);
    split_skips.assign(static_cast<size_t>(team_slots_max), {});
    split_ended_ns.assign(static_cast<size_t>(team_slots_max), 0);
    // SHARED and NODE: the PEs whose heaps this PE maps, which reach each other with loads and stores.
    install(ISHMEM_TEAM_WORLD, make_team(0, 1, state.n_pes, state.my_pe, nullptr, 0));
    install(ISHMEM_TEAM_SHARED, node_team());
    install(ISHMEMX_TEAM_NODE, node_team());
    team_nodes.assign(static_cast<size_t>(teams_max), node_groups{});
    node_groups world = plan_node_groups(teams[ISHMEM_TEAM_WORLD]);
    install_node_part(ISHMEM_TEAM_WORLD, ISHMEM_TEAM_WORLD, world, true);
}

void teams_fini() {
    team_nodes.clear();
    bad_splits_seen.clear();
    split_skips.clear();
    split_ended_ns.clear();
    delete[] teams;
    teams = nullptr;
    teams_max = 0;
}

bool report_bad_team(const char* routine, ishmem_team_t team) {
    if (!routine) return false;  // (a work-group's other work-items: its leader reports)
    if (team == ISHMEM_TEAM_INVALID)
        warn(routine, "team is ISHMEM_TEAM_INVALID");
    else if (team < 0 || team >= teams_max)
        warn(routine, "team %d is not a team handle", team);
    else
        warn(routine, "team %d is not a valid team on this PE (destroyed, or made without this PE)", team);
    return false;
}

// How long a PE that passed a bad parent handle waits for the members of the split it meant to
// join to take its announcement. ISHMEM_TEAM_INVALID is not announced: a PE outside a team gets
// that handle from the split that made it, and passing it on is no error.
constexpr uint64_t bad_parent_grace_ns = 1000 * 1000 * 1000;

bool report_bad_parent_team(const char* routine, ishmem_team_t team) {
    if (team == ISHMEM_TEAM_INVALID || state.n_pes == 1) return report_bad_team(routine, team);
    control_block* c = control(state.my_pe);
    const uint64_t n = c->bad_splits + 1, start = monotonic_ns();
    __atomic_store_n(&c->bad_split_ns, start, __ATOMIC_RELAXED);
    __atomic_store_n(&c->bad_splits, n, __ATOMIC_RELEASE);
    uint64_t claim = __atomic_load_n(&c->bad_split_claim, __ATOMIC_ACQUIRE);
    for (backoff b; claim >> 16 != n; b.pause(), claim = __atomic_load_n(&c->bad_split_claim, __ATOMIC_ACQUIRE)) {
        if (monotonic_ns() - start < bad_parent_grace_ns) continue;
        if (__atomic_compare_exchange_n(&c->bad_split_claim, &claim, n << 16 | claim_withdrawn, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            claim = n << 16 | claim_withdrawn;
    }
    const char* others =
        (claim & 0xffff) == claim_withdrawn ? "" : "; the other members of the split, which wait in it, fail it too";
    if (team < 0 || team >= teams_max)
        warn(routine, "parent_team %d is not a team handle%s", team, others);
    else
        warn(routine, "parent_team %d is not a valid team on this PE (destroyed, or made without this PE)%s", team,
             others);
    return false;
}

bool report_bad_team_pe(const char* routine, ishmem_team_t team, const char* param, int pe) {
    if (!routine) return false;
    if (!find_team(team)) return report_bad_team(routine, team);
    warn(routine, "%s %d is not a PE of team %d (its PEs are 0..%d)", param, pe, team, teams[team].size - 1);
    return false;
}

bool report_partial_overlap(const char* routine, const char* a, const void* pa, const char* b, const void* pb,
                            size_t bytes) {
    if (!routine) return false;
    warn(routine, "%s %p and %s %p overlap partly over %zu bytes (they must be the same array or disjoint)", a, pa, b,
         pb, bytes);
    return false;
}

bool report_overlap(const char* routine, const char* a, const void* pa, size_t a_bytes, const char* b, const void* pb,
                    size_t b_bytes) {
    if (!routine) return false;
    warn(routine, "%s %p (%zu bytes) overlaps %s %p (%zu bytes): %s must lie outside %s", a, pa, a_bytes, b, pb,
         b_bytes, a, b);
    return false;
}

namespace impl {

int team_get_config(ishmem_team_t team, long config_mask, ishmem_team_config_t* config) {
    const team_t* t = find_team(team);
    if (!t) return -1;
    if (config_mask & ISHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = t->config.num_contexts;
    return 0;
}

int team_split_strided(ishmem_team_t parent_team, int start, int stride, int size, const ishmem_team_config_t* config,
                       long config_mask, ishmem_team_t* new_team) {
    constexpr const char* routine = "ishmem_team_split_strided";
    *new_team = ISHMEM_TEAM_INVALID;
    const team_t& parent = teams[parent_team];  // checked by the entry point
    // Every member of the parent computes the new team from its own arguments: they must agree.
    const long last = static_cast<long>(start) + (static_cast<long>(size) - 1) * stride;
    const bool args_ok = !(size < 1 || start < 0 || (size > 1 && stride < 1) || last >= parent.size);
    if (!args_ok)
        warn(routine, "start %d, stride %d, size %d do not fit parent team %d of %d PEs", start, stride, size,
             parent_team, parent.size);
    // The other members learn it in the agreement on the slot: all return -1, none waits.
    int slot = -1, bad_pe = -1;
    switch (agree_on_slots(parent, parent_team, 1, &slot, routine, args_ok, &bad_pe)) {
        case split_agreement::bad_args:
            report_bad_split_elsewhere(routine, parent_team, bad_pe, args_ok);
            return -1;
        case split_agreement::bad_parent:
            report_bad_parent_elsewhere(routine, parent_team, bad_pe);
            return -1;
        case split_agreement::no_slots:
            warn(routine, "no free team slot: ISHMEM_TEAMS_MAX=%d teams exist (destroy some, or raise it)", teams_max);
            return -1;
        case split_agreement::agreed:
            break;
    }
    // After the agreement on the slot, which also tells every member of a member that could not
    // take part (full mode's comparison of the calls would wait for it).
    char args[48] = "";
    if (watch_calls) snprintf(args, sizeof args, "start %d, stride %d, size %d", start, stride, size);
    coll::watched_call wc(coll::alone{}, parent_team, routine, -1, UINT64_MAX, 0, nullptr, false, args);
    const int offset = parent.my_index - start;
    const bool member = offset >= 0 && (size == 1 ? offset == 0 : offset % stride == 0 && offset / stride < size);
    if (parent.spans_nodes) remote->team_split(parent_team, slot, member ? 0 : -1, offset);
    // Every member of the parent plans the new team's node groups alike (members or not), since
    // the leaders' communicator is split over the parent.
    const team_t made = make_team(parent.world_pe(start), size == 1 ? 1 : stride * parent.stride, size,
                                  member && size > 1 ? offset / stride : 0, config, config_mask);
    if (member) install(slot, made);
    node_groups groups = plan_node_groups(made);
    install_node_part(parent_team, slot, groups, member);
    team_barrier(parent, parent_team, routine);
    if (member) *new_team = slot;
    return 0;
}

int team_split_2d(ishmem_team_t parent_team, int xrange, const ishmem_team_config_t* xaxis_config, long xaxis_mask,
                  ishmem_team_t* xaxis_team, const ishmem_team_config_t* yaxis_config, long yaxis_mask,
                  ishmem_team_t* yaxis_team) {
    constexpr const char* routine = "ishmem_team_split_2d";
    *xaxis_team = *yaxis_team = ISHMEM_TEAM_INVALID;
    const team_t& parent = teams[parent_team];
    const int xrange_given = xrange;
    const bool args_ok = xrange >= 1;
    if (!args_ok) warn(routine, "xrange %d is not positive", xrange);
    if (xrange > parent.size) xrange = parent.size;
    // The row teams are disjoint and share one slot; so do the column teams.
    int slots[2], bad_pe = -1;
    switch (agree_on_slots(parent, parent_team, 2, slots, routine, args_ok, &bad_pe)) {
        case split_agreement::bad_args:
            report_bad_split_elsewhere(routine, parent_team, bad_pe, args_ok);
            return -1;
        case split_agreement::bad_parent:
            report_bad_parent_elsewhere(routine, parent_team, bad_pe);
            return -1;
        case split_agreement::no_slots:
            warn(routine, "no two free team slots: ISHMEM_TEAMS_MAX=%d teams exist (destroy some, or raise it)",
                 teams_max);
            return -1;
        case split_agreement::agreed:
            break;
    }
    char args[48] = "";  // (after the agreement on the slots: see team_split_strided)
    if (watch_calls) snprintf(args, sizeof args, "xrange %d", xrange_given);
    coll::watched_call wc(coll::alone{}, parent_team, routine, -1, UINT64_MAX, 0, nullptr, false, args);
    const int me = parent.my_index, row = me / xrange, col = me % xrange;
    const int row_size = parent.size - row * xrange < xrange ? parent.size - row * xrange : xrange;
    const int col_size = (parent.size - col + xrange - 1) / xrange;
    if (parent.spans_nodes) {
        remote->team_split(parent_team, slots[0], row, col);
        remote->team_split(parent_team, slots[1], col, row);
    }
    install(slots[0], make_team(parent.world_pe(row * xrange), parent.stride, row_size, col, xaxis_config, xaxis_mask));
    install(slots[1], make_team(parent.world_pe(col), xrange * parent.stride, col_size, row, yaxis_config, yaxis_mask));
    team_barrier(parent, parent_team, routine);
    *xaxis_team = slots[0];
    *yaxis_team = slots[1];
    return 0;
}

void team_destroy(ishmem_team_t team) {
    constexpr const char* routine = "ishmem_team_destroy";
    if (team == ISHMEM_TEAM_INVALID) return;
    if (team >= 0 && team < predefined_teams) {
        warn(routine, "team %d is predefined and cannot be destroyed; ignored", team);
        return;
    }
    if (!find_team(team)) {
        report_bad_team(routine, team);
        return;
    }
    contexts_team_destroyed(team);
    if (remote) remote->team_destroy(team);
    teams[team].valid = false;
    node_groups& g = team_nodes[static_cast<size_t>(team)];
    if (g.part >= 0) {
        remote->team_destroy(g.part);
        teams[g.part].valid = false;
    }
    if (g.rail >= 0) remote->team_destroy(g.rail);
    g = node_groups{};
    if (heap_on_gpu()) gpu_team_set(team, nullptr);
}

}  // namespace impl
}  // namespace ishmemi

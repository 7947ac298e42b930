// Teams: strided sets of PEs with a synchronization slot each. A handle is the index of the team's
// slot, which every member agreed on when the team was made (disjoint teams may share an index),
// so the handle means the same team on every member. The table is per PE and lives in the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ishmem/generated/constants.h"
#include "ishmem/impl/runtime.h"
#include "ishmem/impl/sync.h"
#include "ishmem/impl/transport.h"
#include "ishmem/impl/tuning.h"

namespace ishmemi {

// Most members of a team with eager inboxes (see the eager section below).
inline constexpr int eager_members = 8;

struct team_t {
    bool valid;
    int start, stride, size;  // world PEs start, start + stride, ... (size of them)
    int my_index;             // the calling PE's number in the team
    ishmem_team_config_t config;
    uint64_t calls;            // flag-exchange collectives this PE has entered on the team
    uint64_t acks_expected;    // acknowledgements this PE has waited for in them, in total
    uint64_t eager_ops;        // eager collectives (small messages through inboxes) on the team
    uint64_t agreed_calls;     // collectives checked by agree_on_call on the team (ISHMEM_CHECK=full)
    bool spans_nodes = false;  // some member is on another node: barriers and collectives go through the transport
    size_t collect_total = 0;  // bytes of the last collect on a team that spans nodes (alike on every member)
    // Eager collectives: the last eager_done seen of each member (index), so that a sender reads a
    // reader's word only when the reader may be eager_depth operations behind, not on every send.
    uint64_t eager_done_seen[eager_members] = {};

    int world_pe(int index) const { return start + index * stride; }
};

// One PE's description of a collective call, compared by the other members (ISHMEM_CHECK=full).
struct agree_record {
    alignas(64) uint64_t seq;  // the team's checked call this describes (release-stored last)
    char routine[48];          // compared: the family, without ishmemx_ and _work_group
    char shown[48];            // printed: the entry point, typed where known
    int32_t root;
    uint32_t elem_size;
    uint64_t nelems;  // UINT64_MAX where it may differ (collect)
    char type[16];
    char args[48];  // compared: other arguments that must agree, as text (team splits)
};
inline constexpr uint64_t agree_depth = 2;

// Per slot, in every member's internal region: the team's barrier and one published word (used by
// collect to share counts). Slots of teams sit at internal_sync_offset + slot * sizeof(team_slot).
struct team_slot {
    barrier_slot barrier;
    alignas(64) uint64_t published;   // collect: this PE's count in the current call
    alignas(64) uint64_t ready;       // the last call in which this PE's buffers were ready to read
    alignas(64) uint64_t acks;        // how many reads of this PE's buffers peers have finished, in total
    alignas(64) uint64_t eager_done;  // the last eager collective this PE has finished on the team
    agree_record agree[agree_depth];  // ring of this PE's last checked calls (agree_on_call)
    alignas(64) uint64_t splits;      // the splits of this team (as the parent) this PE has entered
};
inline constexpr int team_slots_max = static_cast<int>(internal_sync_size / sizeof(team_slot));

// Eager collectives: a small message goes straight into an inbox of each reader, in its internal
// scratch region, so that the sender need not wait for the reader. Inboxes exist for the first
// eager_slots team slots, for teams of at most eager_members PEs, for messages of at most
// eager_bytes; eager_depth per sender (used in turn by successive operations), so that a sender
// may run that many operations ahead of a reader: with more PEs than cores, a deeper pipeline
// means fewer context switches per operation.
inline constexpr int eager_slots = 160;
inline constexpr size_t eager_bytes = tuning::eager_bytes.value;
inline constexpr uint64_t eager_depth = tuning::eager_depth.value;
// Inboxes a sender that had to wait for its reader waits to have free (see class eager).
inline constexpr uint64_t eager_credit = tuning::eager_credit.value;
static_assert(eager_credit >= 1 && eager_credit <= eager_depth);
struct eager_box {
    static constexpr size_t head_bytes = 48;
    alignas(64) uint64_t seq;  // the eager operation whose message the data holds
    uint64_t bytes;            // what the sender sent; in collect more than eager_bytes: not the data
    // A message of at most head_bytes goes in seq's cache line, so that its reader takes one line
    // from the sender's core, not two one after the other; a larger one goes in data.
    alignas(16) unsigned char head[head_bytes];
    alignas(64) unsigned char data[eager_bytes];
    unsigned char* payload(size_t n) { return n <= head_bytes ? head : data; }
    const unsigned char* payload(size_t n) const { return n <= head_bytes ? head : data; }
};
static_assert(offsetof(eager_box, head) + eager_box::head_bytes == 64, "the head fills seq's line");
inline constexpr size_t eager_region_offset = internal_scratch_offset + 4096;
inline constexpr size_t eager_slot_size = eager_depth * eager_members * sizeof(eager_box);
static_assert(4096 + eager_slots * eager_slot_size <= internal_scratch_size);
// PE pe's inbox for messages from team member `sender` in eager operation `op`.
inline eager_box* eager_inbox(int pe, int slot, uint64_t op, int sender) {
    return reinterpret_cast<eager_box*>(internal_base(pe) + eager_region_offset +
                                        static_cast<size_t>(slot) * eager_slot_size) +
           (op % eager_depth) * eager_members + sender;
}

inline size_t team_slot_offset(int slot) {
    return internal_sync_offset + static_cast<size_t>(slot) * sizeof(team_slot);
}
inline team_slot* team_slot_of(int pe, int slot) {
    return reinterpret_cast<team_slot*>(internal_base(pe) + team_slot_offset(slot));
}

// The calling PE's teams, by slot: the handles below teams_max (ISHMEM_TEAMS_MAX), the node parts
// (node_part_slot) above, up to team_slots_max.
extern ISHMEM_API team_t* teams;
extern ISHMEM_API int teams_max;

inline const team_t* find_team(ishmem_team_t team) {
    if (team < 0 || team >= teams_max || !teams[team].valid) return nullptr;
    return &teams[team];
}
inline int team_size_or_zero(ishmem_team_t team) {
    const team_t* t = find_team(team);
    return t ? t->size : 0;
}

// The members of a team that spans nodes, by node, for its hierarchical collectives (collectives.h,
// barrier_over_nodes). Group g holds the team's members on one node; the groups are numbered in the
// order of their lowest members, their leaders. When every group is an arithmetic run of member
// indices (so a strided team of its own) and some group has two members or more, slot `part`
// (node_part_slot) holds the team of this PE's group, and the transport's communicator of that
// slot holds the leaders, ordered by member index. part -1: the team's collectives run over the
// transport among all members. Where besides every group has the same number of members, slot
// `rail` (node_rail_slot) holds a transport communicator of the members with this PE's index in
// their groups, one a node, ordered by group (rails: large reductions split across them); else -1.
struct node_groups {
    int part = -1;
    int rail = -1;
    int my_group = 0;
    bool contiguous = false;              // every group a run of consecutive member indices
    bool uniform = false;                 // every group of the same size
    std::vector<int> group_of;            // by member index
    std::vector<int> first, step, count;  // by group: its lowest member, the step between members, their number
    int index_in_group(int member) const {
        const int g = group_of[static_cast<size_t>(member)];
        return (member - first[static_cast<size_t>(g)]) / step[static_cast<size_t>(g)];
    }
};
extern ISHMEM_API std::vector<node_groups> team_nodes;  // by team slot

// The slot of the node part of the team in slot `team`: above the handles (teams_max), so that the
// parts take no handle of the user's and need no agreement; -1 where the internal region has no
// room (then the team's collectives stay flat).
inline int node_part_slot(int team) { return team + teams_max < team_slots_max ? team + teams_max : -1; }
// Whether slot holds a node part (whose members, in the transport's communicator, are a team's
// leaders), not a user's team.
inline bool is_node_part_slot(int slot) { return slot >= teams_max && slot < 2 * teams_max; }
// The slot of the rails' communicators of the team in slot `team`, above the node parts: only the
// transport uses it (no team lives there). -1 where there is no room (then no rails).
inline int node_rail_slot(int team) { return team + 2 * teams_max < team_slots_max ? team + 2 * teams_max : -1; }

// A barrier over a team that spans nodes: in two levels where it has node groups (first the members
// of each node, then the leaders through the transport, then each node again), else the transport's.
// completing: this PE's remote operations complete first (barrier_all).
ISHMEM_API void barrier_over_nodes(ishmem_team_t team, bool completing, const char* routine);

// Status checks of the generated entry points: a message and false (the routine returns nonzero).
// A null routine reports nothing: a _work_group form passes its name on the group's leader only,
// so that one bad call prints one line.
ISHMEM_API bool report_bad_team(const char* routine, ishmem_team_t team);
ISHMEM_API bool report_bad_team_pe(const char* routine, ishmem_team_t team, const char* param, int pe);
ISHMEM_API bool report_partial_overlap(const char* routine, const char* a, const void* pa, const char* b,
                                       const void* pb, size_t bytes);
ISHMEM_API bool report_overlap(const char* routine, const char* a, const void* pa, size_t a_bytes, const char* b,
                               const void* pb, size_t b_bytes);

inline bool check_team(const char* routine, ishmem_team_t team) {
    return __builtin_expect(find_team(team) != nullptr, 1) || report_bad_team(routine, team);
}
// The parent team of a split: on a bad handle, also tells the other PEs (whose split over their
// parent would otherwise wait for this PE) that this PE's split failed (teams.cpp).
ISHMEM_API bool report_bad_parent_team(const char* routine, ishmem_team_t team);
inline bool check_parent_team(const char* routine, ishmem_team_t team) {
    return __builtin_expect(find_team(team) != nullptr, 1) || report_bad_parent_team(routine, team);
}
inline bool check_team_pe(const char* routine, ishmem_team_t team, const char* param, int pe) {
    const team_t* t = find_team(team);
    return (t && static_cast<unsigned>(pe) < static_cast<unsigned>(t->size)) ||
           report_bad_team_pe(routine, team, param, pe);
}
// Whether a_bytes at pa and b_bytes at pb share a byte (host and device checks).
ISHMEM_HD inline bool overlap_at_all(const void* pa, size_t a_bytes, const void* pb, size_t b_bytes) {
    const auto x = reinterpret_cast<uintptr_t>(pa), y = reinterpret_cast<uintptr_t>(pb);
    return a_bytes != 0 && b_bytes != 0 && x < y + b_bytes && y < x + a_bytes;
}
// Two arrays of `bytes` that are neither the same nor disjoint (host and device checks).
ISHMEM_HD inline bool overlap_partly(const void* pa, const void* pb, size_t bytes) {
    return pa != pb && overlap_at_all(pa, bytes, pb, bytes);
}
// a (a_bytes) must lie wholly outside b (b_bytes): a collect's source outside its dest.
inline bool check_outside(const char* routine, const char* a, const void* pa, size_t a_bytes, const char* b,
                          const void* pb, size_t b_bytes) {
    return __builtin_expect(!overlap_at_all(pa, a_bytes, pb, b_bytes), 1) ||
           report_overlap(routine, a, pa, a_bytes, b, pb, b_bytes);
}
// a and b may be the same array or disjoint, not overlap partly.
inline bool check_no_partial_overlap(const char* routine, const char* a, const void* pa, const char* b, const void* pb,
                                     size_t bytes) {
    return __builtin_expect(!overlap_partly(pa, pb, bytes), 1) || report_partial_overlap(routine, a, pa, b, pb, bytes);
}

// Dissemination barrier over the team's members, one thread per PE. No memory ordering beyond the
// flags' release/acquire (callers that need completion of remote operations quiet first).
inline void team_barrier(const team_t& t, ishmem_team_t handle, const char* routine) {
    if (t.spans_nodes) return barrier_over_nodes(handle, false, routine);
    barrier_pes(t.start, t.stride, t.size, t.my_index, team_slot_offset(handle), routine);
}

// ISHMEM_CHECK=full: every member of team describes the call in ci and compares with the others;
// a difference stops the job with one line naming both PEs and both values. One thread per PE.
ISHMEM_API void agree_on_call(ishmem_team_t team, call_info& ci);

// Called by ishmem_init after the heap is mapped (predefined teams) and by ishmem_finalize.
ISHMEM_API void teams_init();
ISHMEM_API void teams_fini();

namespace impl {

inline int team_my_pe(ishmem_team_t team) {
    const team_t* t = find_team(team);
    return t ? t->my_index : -1;
}
inline int team_n_pes(ishmem_team_t team) {
    const team_t* t = find_team(team);
    return t ? t->size : -1;
}
inline int team_translate_pe(ishmem_team_t src_team, int src_pe, ishmem_team_t dest_team) {
    const team_t *s = find_team(src_team), *d = find_team(dest_team);
    if (!s || !d || src_pe < 0 || src_pe >= s->size) return -1;
    const int pe = s->world_pe(src_pe) - d->start;
    if (pe < 0 || pe % d->stride != 0 || pe / d->stride >= d->size) return -1;
    return pe / d->stride;
}
ISHMEM_API int team_get_config(ishmem_team_t team, long config_mask, ishmem_team_config_t* config);
ISHMEM_API int team_split_strided(ishmem_team_t parent_team, int start, int stride, int size,
                                  const ishmem_team_config_t* config, long config_mask, ishmem_team_t* new_team);
ISHMEM_API int team_split_2d(ishmem_team_t parent_team, int xrange, const ishmem_team_config_t* xaxis_config,
                             long xaxis_mask, ishmem_team_t* xaxis_team, const ishmem_team_config_t* yaxis_config,
                             long yaxis_mask, ishmem_team_t* yaxis_team);
ISHMEM_API void team_destroy(ishmem_team_t team);

}  // namespace impl
}  // namespace ishmemi

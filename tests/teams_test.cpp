// Teams, the semantics the generated per-entry-point cases do not reach: split_strided with strides
// 1, 2 and 3 from every start (a single PE and the whole parent included), split_2d with rows that
// do not divide the parent, splits of splits, translate_pe between sibling and nested teams,
// get_config, destroy-and-recreate far beyond the pool's size, pool exhaustion and recovery, and
// bad input (splits that do not fit, invalid and destroyed handles).
//
// Membership is checked from every side: team_my_pe, team_n_pes, translate_pe to and from the world
// team, and an fcollect of world PE numbers over the new team (the team's own view of its order).
// A PE runs a collective over a team only when every PE agrees that the team came out as expected
// (agreed through puts and barrier_all), so that a wrong split fails the test instead of hanging it.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <algorithm>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness/harness.h"
#include "patterns/common.h"
#include "patterns/teams.h"

namespace {

using ishmem_testing::patterns::allgather;
using ishmem_testing::patterns::sym_array;
using ishmem_testing::patterns::world;

// Number of teams that can exist at once on a PE, predefined ones included (ISHMEM_TEAMS_MAX).
int teams_max() {
    const char* s = std::getenv("ISHMEM_TEAMS_MAX");
    return s && *s ? std::atoi(s) : 64;
}
constexpr int predefined_teams = 3;  // WORLD, SHARED, NODE

// True on every PE when ok is true on every PE. Collective over the world; uses only RMA and
// barrier_all, not the collectives under test.
bool all_agree(bool ok) {
    const std::vector<int> all = allgather(std::vector<int>{ok ? 1 : 0});
    return std::all_of(all.begin(), all.end(), [](int v) { return v == 1; });
}

std::string show_pes(const std::vector<int>& pes) {
    std::string s = "{";
    for (std::size_t i = 0; i < pes.size(); ++i) s += (i ? "," : "") + std::to_string(pes[i]);
    return s + "}";
}

// The world PEs of a strided subset of parent (given as its world PEs in team order).
std::vector<int> strided(const std::vector<int>& parent, int start, int stride, int size) {
    std::vector<int> pes;
    for (int k = 0; k < size; ++k) pes.push_back(parent[start + k * stride]);
    return pes;
}

std::vector<int> world_pes() {
    std::vector<int> pes(ishmem_n_pes());
    for (int i = 0; i < static_cast<int>(pes.size()); ++i) pes[i] = i;
    return pes;
}

int index_of(const std::vector<int>& pes, int pe) {
    auto it = std::find(pes.begin(), pes.end(), pe);
    return it == pes.end() ? -1 : static_cast<int>(it - pes.begin());
}

// A team handle that destroys its team when it goes out of scope (destroying ISHMEM_TEAM_INVALID does
// nothing, so PEs outside the team may hold one too). All PEs leave scopes in the same order.
class owned_team {
  public:
    owned_team() = default;
    owned_team(const owned_team&) = delete;
    owned_team& operator=(const owned_team&) = delete;
    ~owned_team() { reset(); }
    ishmem_team_t* out() { return &t_; }
    ishmem_team_t get() const { return t_; }
    void reset() {
        if (t_ != ISHMEM_TEAM_INVALID) ishmem_team_destroy(t_);
        t_ = ISHMEM_TEAM_INVALID;
    }

  private:
    ishmem_team_t t_ = ISHMEM_TEAM_INVALID;
};

// Checks on every PE that team holds exactly the world PEs `members`, in that order; the PEs not in
// it must hold ISHMEM_TEAM_INVALID. `parent`/`parent_pes` (optional): the team it was split from,
// checked through translate_pe in both directions. Collective over the world.
void expect_team(ishmem_team_t team, const std::vector<int>& members, const std::string& what,
                 ishmem_team_t parent = ISHMEM_TEAM_INVALID, const std::vector<int>& parent_pes = {}) {
    SCOPED_TRACE(what + ": expected members " + show_pes(members));
    const world w;
    const int mine = index_of(members, w.me);
    const int size = static_cast<int>(members.size());
    bool ok = true;
    if (mine < 0) {
        EXPECT_EQ(team, ISHMEM_TEAM_INVALID) << "PE " << w.me << " is not in the team but got a handle";
        ok = team == ISHMEM_TEAM_INVALID;
        EXPECT_EQ(ishmem_team_my_pe(team), -1);
        EXPECT_EQ(ishmem_team_n_pes(team), -1);
    } else {
        EXPECT_NE(team, ISHMEM_TEAM_INVALID) << "PE " << w.me << " is in the team but got ISHMEM_TEAM_INVALID";
        const int my_pe = ishmem_team_my_pe(team);
        const int n_pes = ishmem_team_n_pes(team);
        EXPECT_EQ(my_pe, mine);
        EXPECT_EQ(n_pes, size);
        ok = team != ISHMEM_TEAM_INVALID && my_pe == mine && n_pes == size;
        for (int k = 0; k < size; ++k) {
            EXPECT_EQ(ishmem_team_translate_pe(team, k, ISHMEM_TEAM_WORLD), members[k])
                << "team PE " << k << " -> world";
            ok = ok && ishmem_team_translate_pe(team, k, ISHMEM_TEAM_WORLD) == members[k];
        }
        for (int pe = 0; pe < w.n; ++pe)
            EXPECT_EQ(ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, pe, team), index_of(members, pe))
                << "world PE " << pe << " -> team";
        EXPECT_EQ(ishmem_team_translate_pe(team, size, ISHMEM_TEAM_WORLD), -1)
            << "team PE " << size << " does not exist";
        EXPECT_EQ(ishmem_team_translate_pe(team, -1, ISHMEM_TEAM_WORLD), -1) << "team PE -1 does not exist";
        if (parent != ISHMEM_TEAM_INVALID) {
            for (int k = 0; k < size; ++k)
                EXPECT_EQ(ishmem_team_translate_pe(team, k, parent), index_of(parent_pes, members[k]))
                    << "team PE " << k << " -> parent";
            for (int p = 0; p < static_cast<int>(parent_pes.size()); ++p)
                EXPECT_EQ(ishmem_team_translate_pe(parent, p, team), index_of(members, parent_pes[p]))
                    << "parent PE " << p << " -> team";
        }
    }
    // The team's own view of its order: an fcollect of world PE numbers, and a team_sync.
    sym_array<int> src(1), dest(ishmem_n_pes() + 1);
    if (!all_agree(ok)) {
        ADD_FAILURE() << "the team is not as expected on some PE; its collectives were not run";
        return;
    }
    if (mine >= 0) {
        src[0] = w.me;
        dest.fill(-7);
        EXPECT_EQ(ishmem_team_sync(team), 0);
        EXPECT_EQ(ishmem_int_fcollect(team, dest.get(), src.get(), 1), 0);
        for (int k = 0; k < size; ++k) EXPECT_EQ(dest[k], members[k]) << "fcollect over the team, element " << k;
        EXPECT_EQ(dest[size], -7) << "fcollect wrote past the team's " << size << " elements";
        EXPECT_EQ(ishmem_team_sync(team), 0);
    }
}

// The stderr of stmt, which must hold this PE's one-line message from routine.
template <class F> std::string stderr_of(F&& stmt) {
    testing::internal::CaptureStderr();
    stmt();
    return testing::internal::GetCapturedStderr();
}
// The runtime marks a non-fatal message "warning: " before the routine (its warn() path); accepted.
void expect_message(const std::string& err, const std::string& routine) {
    const std::string pe = "ishmem: PE " + std::to_string(ishmem_my_pe()) + ": ";
    const bool found = err.find(pe + routine + ": ") != std::string::npos ||
                       err.find(pe + "warning: " + routine + ": ") != std::string::npos;
    EXPECT_TRUE(found) << "expected a line starting with \"" << pe << "[warning: ]" << routine << ": \"; stderr was: \""
                       << err << "\"";
}

// ---------------------------------------------------------------------------------------------

// Whether PEs a and b (with these host names) are one node, as ISHMEM_NODE_SPLIT says: the same host
// name, every PE a node (pe), blocks of k PEs (k), or PE p on node p mod N (cyclic:N).
bool same_test_node(int a, int b, const char* name_a, const char* name_b) {
    const char* split = getenv("ISHMEM_NODE_SPLIT");
    if (!split || !*split || strcmp(split, "hostname") == 0) return strcmp(name_a, name_b) == 0;
    if (strcmp(split, "pe") == 0) return a == b;
    if (strncmp(split, "cyclic:", 7) == 0) return a % atoi(split + 7) == b % atoi(split + 7);
    return a / atoi(split) == b / atoi(split);
}

// The world PEs of this PE's node as TEAM_SHARED and TEAM_NODE must hold them, found without the
// library's teams: the PEs with this host name (this PE alone under ISHMEM_NODE_SPLIT=pe), when they
// are a strided set of the world; else this PE alone. Collective.
// node_of[pe]: the lowest PE of pe's node, as same_test_node finds them. Collective.
std::vector<int> test_nodes() {
    const int n = ishmem_n_pes();
    constexpr size_t len = 256;
    char* names = static_cast<char*>(ishmem_calloc(static_cast<size_t>(n) + 1, len));
    gethostname(names + n * len, len - 1);
    ishmem_fcollectmem(ISHMEM_TEAM_WORLD, names, names + n * len, len);
    std::vector<int> node_of(static_cast<size_t>(n));
    for (int pe = 0; pe < n; ++pe) {
        int first = 0;
        while (!same_test_node(first, pe, names + first * len, names + pe * len)) ++first;
        node_of[static_cast<size_t>(pe)] = first;
    }
    ishmem_free(names);
    return node_of;
}

std::vector<int> expected_node_pes() {
    const int n = ishmem_n_pes(), me = ishmem_my_pe();
    const std::vector<int> node_of = test_nodes();
    std::vector<int> pes;
    for (int pe = 0; pe < n; ++pe)
        if (node_of[static_cast<size_t>(pe)] == node_of[static_cast<size_t>(me)]) pes.push_back(pe);
    for (size_t i = 2; i < pes.size(); ++i)
        if (pes[i] - pes[i - 1] != pes[1] - pes[0]) return {me};
    return pes;
}

TEST(Teams, PredefinedTeams) {
    const world w;
    const std::vector<int> node = expected_node_pes();
    for (ishmem_team_t t : {ISHMEM_TEAM_WORLD, ISHMEM_TEAM_SHARED, ISHMEMX_TEAM_NODE}) {
        SCOPED_TRACE("team " + std::to_string(t));
        // WORLD: every PE; SHARED and NODE: the PEs of this node, which reach each other's heaps with
        // loads and stores (all of them on one node).
        std::vector<int> members(static_cast<size_t>(w.n));
        for (int pe = 0; pe < w.n; ++pe) members[static_cast<size_t>(pe)] = pe;
        if (t != ISHMEM_TEAM_WORLD) members = node;
        const int my_index = static_cast<int>(std::find(members.begin(), members.end(), w.me) - members.begin());
        EXPECT_EQ(ishmem_team_my_pe(t), my_index);
        EXPECT_EQ(ishmem_team_n_pes(t), static_cast<int>(members.size()));
        for (int i = 0; i < static_cast<int>(members.size()); ++i) {
            EXPECT_EQ(ishmem_team_translate_pe(t, i, ISHMEM_TEAM_WORLD), members[static_cast<size_t>(i)]);
            EXPECT_EQ(ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, members[static_cast<size_t>(i)], t), i);
        }
        EXPECT_EQ(ishmem_team_sync(t), 0);
    }
    EXPECT_EQ(ishmem_team_my_pe(ISHMEM_TEAM_INVALID), -1);
    EXPECT_EQ(ishmem_team_n_pes(ISHMEM_TEAM_INVALID), -1);
    EXPECT_EQ(ishmem_team_translate_pe(ISHMEM_TEAM_INVALID, 0, ISHMEM_TEAM_WORLD), -1);
    EXPECT_EQ(ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, 0, ISHMEM_TEAM_INVALID), -1);
    EXPECT_EQ(ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, w.n, ISHMEM_TEAM_WORLD), -1);
    EXPECT_EQ(ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, -1, ISHMEM_TEAM_SHARED), -1);
    // Handles that were never made.
    for (ishmem_team_t t : {12345, -2, teams_max(), teams_max() - 1}) {
        EXPECT_EQ(ishmem_team_my_pe(t), -1) << "handle " << t;
        EXPECT_EQ(ishmem_team_n_pes(t), -1) << "handle " << t;
    }
}

// Every start with strides 1, 2 and 3 and the largest size that fits, and size 1 from every start:
// a single PE, the whole parent (start 0, stride 1), teams with gaps, and teams of the last PEs.
TEST(Teams, SplitStridedEveryStartAndStride) {
    const world w;
    const std::vector<int> all = world_pes();
    for (int stride : {1, 2, 3}) {
        for (int start = 0; start < w.n; ++start) {
            const int largest = (w.n - 1 - start) / stride + 1;
            std::vector<int> sizes = {largest};
            if (largest > 1) sizes.push_back(1);
            for (int size : sizes) {
                const std::string what = "split_strided(world, start " + std::to_string(start) + ", stride " +
                                         std::to_string(stride) + ", size " + std::to_string(size) + ")";
                owned_team t;
                *t.out() = ISHMEM_TEAM_WORLD;  // must be overwritten on every PE
                EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, t.out()), 0)
                    << what;
                expect_team(t.get(), strided(all, start, stride, size), what, ISHMEM_TEAM_WORLD, all);
            }
        }
    }
}

// A config asking for contexts is accepted (and ignored).
TEST(Teams, SplitWithConfigIsAccepted) {
    const world w;
    ishmem_team_config_t cfg{};
    cfg.num_contexts = 2;
    owned_team t;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, &cfg, ISHMEM_TEAM_NUM_CONTEXTS, t.out()), 0);
    expect_team(t.get(), world_pes(), "split with num_contexts 2");
}

// Splits that do not fit the parent: nonzero and ISHMEM_TEAM_INVALID on every PE, a message, and
// no team left behind (the pool test later counts the free slots).
TEST(Teams, SplitStridedNotFittingTheParent) {
    const world w;
    struct bad_split {
        int start, stride, size;
    };
    std::vector<bad_split> cases = {
        {0, 1, w.n + 1},  // one PE too many
        {1, 1, w.n},      // runs one past the last PE
        {w.n, 1, 1},      // starts past the last PE
        {-1, 1, 1},       // negative start
        {0, 1, 0},        // empty
        {0, 1, -2},       // negative size
        {0, 0, 2},        // stride 0: the same PE twice
        {0, w.n, 2},      // the second PE would be world PE n
        {w.n - 1, 1, 2},  // the last PE and one past it
    };
    if (w.n >= 2) cases.push_back({0, 2, w.n});  // stride 2 needs 2n - 1 PEs
    for (const bad_split& c : cases) {
        const std::string what = "split_strided(world, start " + std::to_string(c.start) + ", stride " +
                                 std::to_string(c.stride) + ", size " + std::to_string(c.size) + ")";
        SCOPED_TRACE(what);
        ishmem_team_t t = ISHMEM_TEAM_WORLD;
        int rc = 0;
        const std::string err = stderr_of(
            [&] { rc = ishmem_team_split_strided(ISHMEM_TEAM_WORLD, c.start, c.stride, c.size, nullptr, 0, &t); });
        EXPECT_NE(rc, 0) << "the split does not fit " << w.n << " PEs";
        EXPECT_EQ(t, ISHMEM_TEAM_INVALID);
        expect_message(err, "ishmem_team_split_strided");
        if (t != ISHMEM_TEAM_INVALID && t != ISHMEM_TEAM_WORLD) ishmem_team_destroy(t);
    }
    // Also relative to a smaller parent: fits the world, not the parent.
    owned_team parent;
    const int psize = w.n > 1 ? w.n - 1 : 1;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, psize, nullptr, 0, parent.out()), 0);
    if (all_agree(ishmem_team_n_pes(parent.get()) == psize || w.me >= psize)) {
        if (w.me < psize) {
            ishmem_team_t t = ISHMEM_TEAM_WORLD;
            int rc = 0;
            const std::string err =
                stderr_of([&] { rc = ishmem_team_split_strided(parent.get(), 0, 1, psize + 1, nullptr, 0, &t); });
            EXPECT_NE(rc, 0) << "size " << psize + 1 << " does not fit a parent of " << psize;
            EXPECT_EQ(t, ISHMEM_TEAM_INVALID);
            expect_message(err, "ishmem_team_split_strided");
        }
    } else {
        ADD_FAILURE() << "the parent of " << psize << " PEs was not made on every PE";
    }
    // The parent of the split must be a valid team.
    ishmem_team_t t = ISHMEM_TEAM_WORLD;
    int rc = 0;
    const std::string err =
        stderr_of([&] { rc = ishmem_team_split_strided(ISHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &t); });
    EXPECT_NE(rc, 0);
    EXPECT_EQ(t, ISHMEM_TEAM_INVALID);
    expect_message(err, "ishmem_team_split_strided");
}

// split_2d: rows of xrange consecutive parent PEs (the last one shorter when xrange does not divide
// the parent), columns of the PEs with the same index in their row. xrange larger than the parent is
// clamped: one row, and a column per PE.
TEST(Teams, Split2d) {
    const world w;
    const std::vector<int> all = world_pes();
    for (int xrange : {1, 2, 3, w.n, w.n + 2}) {
        const std::string what = "split_2d(world, xrange " + std::to_string(xrange) + ")";
        SCOPED_TRACE(what);
        const int xr = std::min(xrange, w.n);
        owned_team x, y;
        *x.out() = ISHMEM_TEAM_WORLD;
        *y.out() = ISHMEM_TEAM_WORLD;
        EXPECT_EQ(ishmem_team_split_2d(ISHMEM_TEAM_WORLD, xrange, nullptr, 0, x.out(), nullptr, 0, y.out()), 0);
        std::vector<int> row, column;
        for (int pe = (w.me / xr) * xr; pe < std::min((w.me / xr + 1) * xr, w.n); ++pe) row.push_back(pe);
        for (int pe = w.me % xr; pe < w.n; pe += xr) column.push_back(pe);
        // Every PE is in its own row and column; expect_team checks the team from the members' side
        // only, since each PE's row differs. The fcollect inside runs per row concurrently.
        expect_team(x.get(), row, what + " row of PE " + std::to_string(w.me), ISHMEM_TEAM_WORLD, all);
        expect_team(y.get(), column, what + " column of PE " + std::to_string(w.me), ISHMEM_TEAM_WORLD, all);
        // Row and column meet in this PE only.
        EXPECT_EQ(ishmem_team_translate_pe(x.get(), ishmem_team_my_pe(x.get()), y.get()), ishmem_team_my_pe(y.get()));
        for (int k = 0; k < static_cast<int>(row.size()); ++k)
            if (row[k] != w.me) {
                EXPECT_EQ(ishmem_team_translate_pe(x.get(), k, y.get()), -1)
                    << "row PE " << k << " is not in my column";
            }
    }
}

// Arguments bad on one PE only: every member returns nonzero and ISHMEM_TEAM_INVALID (none waits
// for the one that gave up, which the test's timeout would catch), and the others name that PE.
TEST(Teams, SplitBadOnOnePeOnly) {
    const world w;
    if (w.n < 2) GTEST_SKIP() << "needs 2 PEs";
    const char* check = std::getenv("ISHMEM_CHECK");
    if (check && std::strcmp(check, "full") == 0) GTEST_SKIP() << "full mode stops the job at the differing arguments";
    for (int form = 0; form < 2; ++form) {
        SCOPED_TRACE(form == 0 ? "split_strided, size 0 on PE 1" : "split_2d, xrange 0 on PE 1");
        ishmem_team_t t = ISHMEM_TEAM_WORLD, y = ISHMEM_TEAM_WORLD;
        int rc = 0;
        const std::string err = stderr_of([&] {
            rc = form == 0 ? ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.me == 1 ? 0 : w.n, nullptr, 0, &t)
                           : ishmem_team_split_2d(ISHMEM_TEAM_WORLD, w.me == 1 ? 0 : 1, nullptr, 0, &t, nullptr, 0, &y);
        });
        EXPECT_NE(rc, 0);
        EXPECT_EQ(t, ISHMEM_TEAM_INVALID);
        if (form == 1) EXPECT_EQ(y, ISHMEM_TEAM_INVALID);
        const std::string routine = form == 0 ? "ishmem_team_split_strided" : "ishmem_team_split_2d";
        expect_message(err, routine);
        const std::string why = w.me != 1   ? "the arguments of PE 1 do not fit parent team 0"
                                : form == 0 ? "size 0 do not fit"
                                            : "xrange 0 is not positive";
        EXPECT_NE(err.find(why), std::string::npos) << "stderr was: " << err;
    }
    ishmem_barrier_all();  // the world still works alike on every PE
}

// split_2d with a bad xrange: nonzero, both handles ISHMEM_TEAM_INVALID, a message.
TEST(Teams, Split2dBadXrange) {
    for (int xrange : {0, -3}) {
        SCOPED_TRACE("xrange " + std::to_string(xrange));
        ishmem_team_t x = ISHMEM_TEAM_WORLD, y = ISHMEM_TEAM_WORLD;
        int rc = 0;
        const std::string err =
            stderr_of([&] { rc = ishmem_team_split_2d(ISHMEM_TEAM_WORLD, xrange, nullptr, 0, &x, nullptr, 0, &y); });
        EXPECT_NE(rc, 0);
        EXPECT_EQ(x, ISHMEM_TEAM_INVALID);
        EXPECT_EQ(y, ISHMEM_TEAM_INVALID);
        expect_message(err, "ishmem_team_split_2d");
    }
    // An invalid parent: the same.
    ishmem_team_t x = ISHMEM_TEAM_WORLD, y = ISHMEM_TEAM_WORLD;
    int rc = 0;
    const std::string err =
        stderr_of([&] { rc = ishmem_team_split_2d(ISHMEM_TEAM_INVALID, 1, nullptr, 0, &x, nullptr, 0, &y); });
    EXPECT_NE(rc, 0) << "split_2d of ISHMEM_TEAM_INVALID";
    EXPECT_EQ(x, ISHMEM_TEAM_INVALID) << "split_2d of ISHMEM_TEAM_INVALID";
    EXPECT_EQ(y, ISHMEM_TEAM_INVALID) << "split_2d of ISHMEM_TEAM_INVALID";
    expect_message(err, "ishmem_team_split_2d");
}

// A split of a split of a split: parent = world PEs 1..n-1 (or {0} alone), child = every other PE
// of the parent, grandchild = the child's last PE; and split_2d of the parent. Numbers passed to each
// split are relative to its parent, and translate_pe works between every pair.
TEST(Teams, NestedSplits) {
    const world w;
    const std::vector<int> all = world_pes();
    const int pstart = w.n > 1 ? 1 : 0;
    const int psize = w.n - pstart;
    owned_team parent;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, pstart, 1, psize, nullptr, 0, parent.out()), 0);
    const std::vector<int> parent_pes = strided(all, pstart, 1, psize);
    expect_team(parent.get(), parent_pes, "parent = world PEs from " + std::to_string(pstart), ISHMEM_TEAM_WORLD, all);
    const bool in_parent = index_of(parent_pes, w.me) >= 0;
    if (!all_agree(!in_parent || ishmem_team_n_pes(parent.get()) == psize)) {
        ADD_FAILURE() << "the parent team is wrong; the nested splits were not run";
        return;
    }

    // Only the parent's PEs call the splits over it; the others hold ISHMEM_TEAM_INVALID for them.
    const int csize = (psize + 1) / 2;
    owned_team child, grandchild, x, y;
    if (in_parent) {
        EXPECT_EQ(ishmem_team_split_strided(parent.get(), 0, 2, csize, nullptr, 0, child.out()), 0);
    }
    const std::vector<int> child_pes = strided(parent_pes, 0, 2, csize);
    expect_team(child.get(), child_pes, "child = every other PE of the parent", parent.get(), parent_pes);
    const bool in_child = index_of(child_pes, w.me) >= 0;
    if (!all_agree(!in_child || ishmem_team_n_pes(child.get()) == csize)) {
        ADD_FAILURE() << "the child team is wrong; the grandchild was not made";
        return;
    }
    if (in_child) {
        EXPECT_EQ(ishmem_team_split_strided(child.get(), csize - 1, 1, 1, nullptr, 0, grandchild.out()), 0);
    }
    const std::vector<int> grandchild_pes = {child_pes.back()};
    expect_team(grandchild.get(), grandchild_pes, "grandchild = the child's last PE", child.get(), child_pes);
    if (w.me == child_pes.back()) {
        EXPECT_EQ(ishmem_team_translate_pe(grandchild.get(), 0, parent.get()), index_of(parent_pes, w.me));
        EXPECT_EQ(ishmem_team_translate_pe(parent.get(), index_of(parent_pes, w.me), grandchild.get()), 0);
    }
    if (in_child && in_parent) {
        // Between the child and the parent, in both directions.
        for (int k = 0; k < csize; ++k) EXPECT_EQ(ishmem_team_translate_pe(child.get(), k, parent.get()), 2 * k);
        for (int p = 0; p < psize; ++p)
            EXPECT_EQ(ishmem_team_translate_pe(parent.get(), p, child.get()), p % 2 ? -1 : p / 2);
    }

    // split_2d of the parent with rows of 2: rows {p0,p1},{p2,p3},.. and columns of even/odd indices.
    if (in_parent) {
        EXPECT_EQ(ishmem_team_split_2d(parent.get(), 2, nullptr, 0, x.out(), nullptr, 0, y.out()), 0);
    }
    if (in_parent) {
        const int p = index_of(parent_pes, w.me);
        std::vector<int> row, column;
        for (int q = (p / 2) * 2; q < std::min((p / 2) * 2 + 2, psize); ++q) row.push_back(parent_pes[q]);
        for (int q = p % 2; q < psize; q += 2) column.push_back(parent_pes[q]);
        EXPECT_EQ(ishmem_team_my_pe(x.get()), p % 2);
        EXPECT_EQ(ishmem_team_n_pes(x.get()), static_cast<int>(row.size()));
        EXPECT_EQ(ishmem_team_my_pe(y.get()), p / 2);
        EXPECT_EQ(ishmem_team_n_pes(y.get()), static_cast<int>(column.size()));
        for (int k = 0; k < static_cast<int>(row.size()); ++k)
            EXPECT_EQ(ishmem_team_translate_pe(x.get(), k, ISHMEM_TEAM_WORLD), row[k]) << "row PE " << k;
        for (int k = 0; k < static_cast<int>(column.size()); ++k) {
            EXPECT_EQ(ishmem_team_translate_pe(y.get(), k, ISHMEM_TEAM_WORLD), column[k]) << "column PE " << k;
            EXPECT_EQ(ishmem_team_translate_pe(y.get(), k, parent.get()), p % 2 + 2 * k)
                << "column PE " << k << " -> parent";
        }
        // The column of even parent indices is the child team, PE for PE.
        if (p % 2 == 0) {
            for (int k = 0; k < static_cast<int>(column.size()); ++k)
                EXPECT_EQ(ishmem_team_translate_pe(y.get(), k, child.get()), k);
        }
    } else {
        EXPECT_EQ(x.get(), ISHMEM_TEAM_INVALID);
        EXPECT_EQ(y.get(), ISHMEM_TEAM_INVALID);
    }
    // Destroy innermost first (owned_team destructors run in reverse order: y, x, grandchild, child, parent).
}

// translate_pe between two sibling teams that overlap in some PEs: evens and the first half.
TEST(Teams, TranslateBetweenSiblings) {
    const world w;
    const std::vector<int> all = world_pes();
    const int esize = (w.n + 1) / 2;
    const int hsize = (w.n + 1) / 2;
    owned_team evens, half;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, esize, nullptr, 0, evens.out()), 0);
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, hsize, nullptr, 0, half.out()), 0);
    const std::vector<int> even_pes = strided(all, 0, 2, esize), half_pes = strided(all, 0, 1, hsize);
    expect_team(evens.get(), even_pes, "evens");
    expect_team(half.get(), half_pes, "first half");
    if (index_of(even_pes, w.me) >= 0 && index_of(half_pes, w.me) >= 0) {
        for (int k = 0; k < esize; ++k)
            EXPECT_EQ(ishmem_team_translate_pe(evens.get(), k, half.get()), index_of(half_pes, even_pes[k]))
                << "evens PE " << k;
        for (int k = 0; k < hsize; ++k)
            EXPECT_EQ(ishmem_team_translate_pe(half.get(), k, evens.get()), index_of(even_pes, half_pes[k]))
                << "half PE " << k;
    }
    // A PE outside a team translates nothing through it (its handle is ISHMEM_TEAM_INVALID).
    if (index_of(even_pes, w.me) < 0) {
        EXPECT_EQ(ishmem_team_translate_pe(evens.get(), 0, ISHMEM_TEAM_WORLD), -1);
    }
    if (index_of(half_pes, w.me) < 0) {
        EXPECT_EQ(ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, w.me, half.get()), -1);
    }
}

TEST(Teams, GetConfig) {
    const world w;
    ishmem_team_config_t cfg;
    // A mask of 0 copies nothing.
    cfg.num_contexts = 4242;
    EXPECT_EQ(ishmem_team_get_config(ISHMEM_TEAM_WORLD, 0, &cfg), 0);
    EXPECT_EQ(cfg.num_contexts, 4242) << "a mask of 0 must leave config alone";
    for (ishmem_team_t t : {ISHMEM_TEAM_WORLD, ISHMEM_TEAM_SHARED, ISHMEMX_TEAM_NODE}) {
        cfg.num_contexts = -99;
        EXPECT_EQ(ishmem_team_get_config(t, ISHMEM_TEAM_NUM_CONTEXTS, &cfg), 0) << "team " << t;
        EXPECT_GE(cfg.num_contexts, 0) << "team " << t << ": num_contexts not written";
    }
    // A split team made with num_contexts 3: either the stored request or 0 (contexts are ignored).
    ishmem_team_config_t req{};
    req.num_contexts = 3;
    owned_team t;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, &req, ISHMEM_TEAM_NUM_CONTEXTS, t.out()), 0);
    cfg.num_contexts = -99;
    EXPECT_EQ(ishmem_team_get_config(t.get(), ISHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    EXPECT_TRUE(cfg.num_contexts == 3 || cfg.num_contexts == 0) << "num_contexts " << cfg.num_contexts;
    // Invalid and destroyed teams: nonzero with a message, config untouched.
    const ishmem_team_t old = t.get();
    t.reset();
    for (ishmem_team_t bad : {ISHMEM_TEAM_INVALID, old}) {
        SCOPED_TRACE("team " + std::to_string(bad));
        cfg.num_contexts = 77;
        int rc = 0;
        const std::string err = stderr_of([&] { rc = ishmem_team_get_config(bad, ISHMEM_TEAM_NUM_CONTEXTS, &cfg); });
        EXPECT_NE(rc, 0);
        EXPECT_EQ(cfg.num_contexts, 77);
        expect_message(err, "ishmem_team_get_config");
    }
    EXPECT_ISHMEM_ERROR(ishmem_team_get_config(ISHMEM_TEAM_WORLD, ISHMEM_TEAM_NUM_CONTEXTS, nullptr),
                        "ishmem_team_get_config: config is null");
}

// A destroyed handle is invalid everywhere; destroying ISHMEM_TEAM_INVALID does nothing; destroying a
// predefined team prints a message and leaves it working.
TEST(Teams, DestroyedTeamIsInvalid) {
    const world w;
    ishmem_team_t t = ISHMEM_TEAM_INVALID;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, nullptr, 0, &t), 0);
    ASSERT_TRUE(all_agree(t != ISHMEM_TEAM_INVALID));
    EXPECT_EQ(ishmem_team_sync(t), 0);
    ishmem_team_destroy(t);
    EXPECT_EQ(ishmem_team_my_pe(t), -1);
    EXPECT_EQ(ishmem_team_n_pes(t), -1);
    EXPECT_EQ(ishmem_team_translate_pe(t, 0, ISHMEM_TEAM_WORLD), -1);
    EXPECT_EQ(ishmem_team_translate_pe(ISHMEM_TEAM_WORLD, 0, t), -1);
    int rc = 0;
    std::string err = stderr_of([&] { rc = ishmem_team_sync(t); });
    EXPECT_NE(rc, 0) << "team_sync on a destroyed team";
    expect_message(err, "ishmem_team_sync");
    ishmem_team_t x = ISHMEM_TEAM_WORLD;
    err = stderr_of([&] { rc = ishmem_team_split_strided(t, 0, 1, 1, nullptr, 0, &x); });
    EXPECT_NE(rc, 0) << "split of a destroyed team";
    EXPECT_EQ(x, ISHMEM_TEAM_INVALID);

    err = stderr_of([] { ishmem_team_destroy(ISHMEM_TEAM_INVALID); });
    EXPECT_EQ(err, "") << "destroying ISHMEM_TEAM_INVALID must do nothing";
    err = stderr_of([] { ishmem_team_destroy(ISHMEM_TEAM_WORLD); });
    expect_message(err, "ishmem_team_destroy");
    EXPECT_EQ(ishmem_team_n_pes(ISHMEM_TEAM_WORLD), w.n) << "ISHMEM_TEAM_WORLD must survive a destroy";
    EXPECT_EQ(ishmem_team_sync(ISHMEM_TEAM_WORLD), 0);
}

// 200 rounds of split, use and destroy: far more teams than the pool holds, so slots must be
// recycled, and a recycled slot's synchronization state must start clean.
TEST(Teams, DestroyAndRecreate200Times) {
    const world w;
    sym_array<int> src(1), dest(1);
    int failures = 0;
    for (int round = 0; round < 200 && failures < 3; ++round) {
        ishmem_team_t t = ISHMEM_TEAM_INVALID;
        // Alternate the whole world with the first PEs / every other PE, so the teams differ.
        const int start = 0, stride = round % 3 == 2 && w.n > 1 ? 2 : 1;
        const int size = stride == 2 ? (w.n + 1) / 2 : (round % 3 == 1 ? std::max(1, w.n - 1) : w.n);
        const bool member = w.me % stride == 0 && w.me / stride < size;
        const int rc = ishmem_team_split_strided(ISHMEM_TEAM_WORLD, start, stride, size, nullptr, 0, &t);
        const bool ok = rc == 0 && (member ? ishmem_team_n_pes(t) == size : t == ISHMEM_TEAM_INVALID);
        if (!all_agree(ok)) {
            ADD_FAILURE() << "round " << round << ": split returned " << rc << ", team " << t << " on PE " << w.me;
            ++failures;
            if (t != ISHMEM_TEAM_INVALID) ishmem_team_destroy(t);
            continue;
        }
        if (member) {
            EXPECT_EQ(ishmem_team_sync(t), 0) << "round " << round;
            src[0] = w.me + round;
            EXPECT_EQ(ishmem_int_sum_reduce(t, dest.get(), src.get(), 1), 0) << "round " << round;
            int expected = 0;
            for (int k = 0; k < size; ++k) expected += k * stride + round;
            EXPECT_EQ(dest[0], expected) << "round " << round;
            ishmem_team_destroy(t);
        }
    }
    // Also split_2d, which makes two teams per PE per round.
    for (int round = 0; round < 100 && failures < 3; ++round) {
        ishmem_team_t x = ISHMEM_TEAM_INVALID, y = ISHMEM_TEAM_INVALID;
        const int rc = ishmem_team_split_2d(ISHMEM_TEAM_WORLD, 1 + round % 2, nullptr, 0, &x, nullptr, 0, &y);
        if (!all_agree(rc == 0 && x != ISHMEM_TEAM_INVALID && y != ISHMEM_TEAM_INVALID)) {
            ADD_FAILURE() << "split_2d round " << round << ": returned " << rc;
            ++failures;
        } else {
            EXPECT_EQ(ishmem_team_sync(x), 0);
            EXPECT_EQ(ishmem_team_sync(y), 0);
        }
        if (y != ISHMEM_TEAM_INVALID) ishmem_team_destroy(y);
        if (x != ISHMEM_TEAM_INVALID) ishmem_team_destroy(x);
    }
}

// More teams than the pool holds: the splits after the last free slot return nonzero with
// ISHMEM_TEAM_INVALID (and a message); destroying a team frees its slot for the next split.
TEST(Teams, PoolExhaustionAndRecovery) {
    const world w;
    // The suite keeps one team for its whole run (patterns/teams.h: strided_test_team, made on first
    // use); make sure it exists, so that the count below does not depend on which tests ran before.
    // A world-wide split needs a slot free on every PE, and that team's members hold one.
    (void)ishmem_testing::patterns::strided_test_team();
    ishmem_barrier_all();
    const int capacity = teams_max() - predefined_teams - 1;
    std::vector<ishmem_team_t> made;
    int rc = 0;
    ishmem_team_t t = ISHMEM_TEAM_INVALID;
    std::string err;
    for (int i = 0; i < capacity + 5; ++i) {
        t = ISHMEM_TEAM_WORLD;
        err = stderr_of([&] { rc = ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, nullptr, 0, &t); });
        if (rc != 0) break;
        EXPECT_NE(t, ISHMEM_TEAM_INVALID) << "split " << i << " returned 0 without a team";
        made.push_back(t);
    }
    // The same count on every PE (every PE is in every team).
    EXPECT_EQ(static_cast<int>(made.size()), capacity)
        << "ISHMEM_TEAMS_MAX " << teams_max() << " less the " << predefined_teams
        << " predefined teams and the suite's strided test team (fewer: an earlier test left teams behind)";
    EXPECT_NE(rc, 0) << "more than " << capacity << " teams were made";
    EXPECT_EQ(t, ISHMEM_TEAM_INVALID) << "a split that found no free slot must give ISHMEM_TEAM_INVALID";
    expect_message(err, "ishmem_team_split_strided");
    const bool full = all_agree(rc != 0 && static_cast<int>(made.size()) == capacity);
    if (full) {
        // Every handle is distinct.
        std::vector<ishmem_team_t> sorted = made;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "two live teams share a handle";
        // split_2d fails too, with both handles invalid.
        ishmem_team_t x = ISHMEM_TEAM_WORLD, y = ISHMEM_TEAM_WORLD;
        err = stderr_of([&] { rc = ishmem_team_split_2d(ISHMEM_TEAM_WORLD, 1, nullptr, 0, &x, nullptr, 0, &y); });
        EXPECT_NE(rc, 0) << "split_2d with a full pool";
        EXPECT_EQ(x, ISHMEM_TEAM_INVALID);
        EXPECT_EQ(y, ISHMEM_TEAM_INVALID);
        expect_message(err, "ishmem_team_split_2d");
        // The teams still work, the newest included.
        EXPECT_EQ(ishmem_team_sync(made.back()), 0);
        // Destroying one (from the middle) frees a slot for exactly one more team.
        const std::size_t mid = made.size() / 2;
        ishmem_team_destroy(made[mid]);
        t = ISHMEM_TEAM_INVALID;
        EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, nullptr, 0, &t), 0) << "after one destroy";
        EXPECT_NE(t, ISHMEM_TEAM_INVALID);
        if (all_agree(t != ISHMEM_TEAM_INVALID)) {
            EXPECT_EQ(ishmem_team_sync(t), 0);
            EXPECT_EQ(ishmem_team_n_pes(t), w.n);
        }
        made[mid] = t;
        ishmem_team_t extra = ISHMEM_TEAM_WORLD;
        err = stderr_of([&] { rc = ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, nullptr, 0, &extra); });
        EXPECT_NE(rc, 0) << "the pool should be full again";
        EXPECT_EQ(extra, ISHMEM_TEAM_INVALID);
        if (extra != ISHMEM_TEAM_INVALID && extra != ISHMEM_TEAM_WORLD) made.push_back(extra);
    }
    for (ishmem_team_t m : made)
        if (m != ISHMEM_TEAM_INVALID) ishmem_team_destroy(m);
    // All freed: a split_2d (two teams) and a full-size run of splits work again.
    ishmem_team_t x = ISHMEM_TEAM_INVALID, y = ISHMEM_TEAM_INVALID;
    EXPECT_EQ(ishmem_team_split_2d(ISHMEM_TEAM_WORLD, 1, nullptr, 0, &x, nullptr, 0, &y), 0)
        << "after destroying every team";
    if (all_agree(x != ISHMEM_TEAM_INVALID && y != ISHMEM_TEAM_INVALID)) {
        EXPECT_EQ(ishmem_team_sync(x), 0);
        EXPECT_EQ(ishmem_team_sync(y), 0);
    }
    if (y != ISHMEM_TEAM_INVALID) ishmem_team_destroy(y);
    if (x != ISHMEM_TEAM_INVALID) ishmem_team_destroy(x);
    made.clear();
    for (int i = 0; i < capacity; ++i) {
        t = ISHMEM_TEAM_INVALID;
        rc = ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, nullptr, 0, &t);
        if (rc != 0) break;
        made.push_back(t);
    }
    EXPECT_EQ(static_cast<int>(made.size()), capacity) << "the pool did not get all its slots back";
    for (ishmem_team_t m : made) ishmem_team_destroy(m);
}

// On one PE, where a test has no halves to split: a team of the one PE is made and works.
void expect_single_pe_team() {
    owned_team t;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, t.out()), 0);
    expect_team(t.get(), {0}, "single PE");
}

// The odd PEs fill their pools with teams among themselves; the even PEs hold few. A world-wide split
// then cannot get a slot on the odd PEs: it must fail on every PE alike (nonzero, ISHMEM_TEAM_INVALID),
// not hand the even PEs a team whose other members do not have it. After the odd PEs destroy their
// teams, the world-wide split works.
TEST(Teams, PoolFullOnSomePesOnly) {
    const world w;
    if (w.n < 2) {
        // No second half: a world split after a full pool is PoolExhaustionAndRecovery's case.
        expect_single_pe_team();
        return;
    }
    (void)ishmem_testing::patterns::strided_test_team();
    owned_team odds;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 1, 2, w.n / 2, nullptr, 0, odds.out()), 0);
    const bool odd = w.me % 2 == 1;
    if (!all_agree(odd ? ishmem_team_n_pes(odds.get()) == w.n / 2 : odds.get() == ISHMEM_TEAM_INVALID)) {
        ADD_FAILURE() << "the team of odd PEs was not made";
        return;
    }
    std::vector<ishmem_team_t> filler;
    if (odd) {
        for (int i = 0; i < teams_max(); ++i) {
            ishmem_team_t t = ISHMEM_TEAM_INVALID;
            int rc = 0;
            stderr_of([&] { rc = ishmem_team_split_strided(odds.get(), 0, 1, w.n / 2, nullptr, 0, &t); });
            if (rc != 0) break;
            filler.push_back(t);
        }
        EXPECT_GT(filler.size(), 0u);
        EXPECT_LT(static_cast<int>(filler.size()), teams_max());
    }
    ishmem_team_t t = ISHMEM_TEAM_WORLD;
    int rc = 0;
    const std::string err =
        stderr_of([&] { rc = ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, nullptr, 0, &t); });
    EXPECT_NE(rc, 0) << (odd ? "this PE's pool is full" : "the odd PEs' pools are full");
    EXPECT_EQ(t, ISHMEM_TEAM_INVALID);
    expect_message(err, "ishmem_team_split_strided");
    const bool failed_everywhere = all_agree(rc != 0 && t == ISHMEM_TEAM_INVALID);
    if (!failed_everywhere && t != ISHMEM_TEAM_INVALID && t != ISHMEM_TEAM_WORLD) {
        ADD_FAILURE() << "PE " << w.me << " got team " << t << " from a split that could not succeed everywhere";
        ishmem_team_destroy(t);  // may hang if the other PEs do not hold it; the watchdog then reports
    }
    for (ishmem_team_t f : filler) ishmem_team_destroy(f);
    ishmem_barrier_all();
    owned_team all;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, nullptr, 0, all.out()), 0)
        << "after the odd PEs freed their slots";
    expect_team(all.get(), world_pes(), "world-wide team after the odd PEs freed their slots");
}

// Teams made only by some PEs use slots that the others may hold for other teams: the odd PEs make
// teams among themselves while the even PEs make teams among themselves, and both still work.
TEST(Teams, DisjointTeamsSplitFromDisjointParents) {
    const world w;
    if (w.n < 2) {
        // One PE: the "halves" would be the world and nothing.
        expect_single_pe_team();
        return;
    }
    const std::vector<int> all = world_pes();
    owned_team evens, odds;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, (w.n + 1) / 2, nullptr, 0, evens.out()), 0);
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 1, 2, w.n / 2, nullptr, 0, odds.out()), 0);
    const bool even = w.me % 2 == 0;
    const ishmem_team_t mine = even ? evens.get() : odds.get();
    const std::vector<int> mine_pes = strided(all, even ? 0 : 1, 2, even ? (w.n + 1) / 2 : w.n / 2);
    if (!all_agree(ishmem_team_n_pes(mine) == static_cast<int>(mine_pes.size()))) {
        ADD_FAILURE() << "the even/odd teams were not made";
        return;
    }
    // Each half makes a different number of sub-teams of itself, concurrently with the other half.
    std::vector<ishmem_team_t> subs;
    const int count = even ? 5 : 2;
    for (int i = 0; i < count; ++i) {
        ishmem_team_t s = ISHMEM_TEAM_INVALID;
        EXPECT_EQ(ishmem_team_split_strided(mine, 0, 1, static_cast<int>(mine_pes.size()), nullptr, 0, &s), 0);
        EXPECT_EQ(ishmem_team_n_pes(s), static_cast<int>(mine_pes.size()));
        subs.push_back(s);
    }
    // Collectives on the sub-teams of both halves at the same time (they may share slot numbers, but
    // not PEs): a sum over each, checked against the half's world PEs.
    sym_array<long> src(4), dest(4);
    for (std::size_t i = 0; i < subs.size(); ++i) {
        EXPECT_EQ(ishmem_team_sync(subs[i]), 0);
        for (int e = 0; e < 4; ++e) src[e] = 100 * w.me + static_cast<long>(i) + e;
        EXPECT_EQ(ishmem_long_sum_reduce(subs[i], dest.get(), src.get(), 4), 0) << "sub-team " << i;
        for (int e = 0; e < 4; ++e) {
            long expected = 0;
            for (int pe : mine_pes) expected += 100 * pe + static_cast<long>(i) + e;
            EXPECT_EQ(dest[e], expected) << "sub-team " << i << ", element " << e;
        }
    }
    ishmem_barrier_all();
    // Then a world-wide team must still get a slot that is free on every PE.
    owned_team all_team;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, w.n, nullptr, 0, all_team.out()), 0);
    expect_team(all_team.get(), all, "world-wide team after per-half teams");
    for (ishmem_team_t s : subs)
        if (s != ISHMEM_TEAM_INVALID) ishmem_team_destroy(s);
}

// Where a team has members on several nodes and two or more on some node, its barriers and
// collectives run in two levels (multinode.rst). The library's node groups of the world and of
// split teams must be those the placement gives (ISHMEM_NODE_SPLIT, host names), found here
// without the library: otherwise the suite's collectives under such a placement would silently
// test the one-level form. (Their values are the collective tests' job.)
TEST(Teams, NodeGroupsOfTeamsThatSpanNodes) {
    const world w;
    const std::vector<int> node_of = test_nodes();
    const char* hier = getenv("ISHMEM_HIERARCHICAL");
    const bool on = !hier || (strcmp(hier, "0") != 0 && strcmp(hier, "no") != 0);
    auto check = [&](ishmem_team_t team, const std::vector<int>& pes, const char* what) {
        SCOPED_TRACE(what);
        // Groups by node in order of their lowest member, as member indices.
        std::vector<std::vector<int>> groups;
        std::vector<int> group_node;
        for (int i = 0; i < static_cast<int>(pes.size()); ++i) {
            const int node = node_of[static_cast<size_t>(pes[static_cast<size_t>(i)])];
            const auto at = std::find(group_node.begin(), group_node.end(), node);
            if (at == group_node.end()) {
                group_node.push_back(node);
                groups.push_back({i});
            } else {
                groups[static_cast<size_t>(at - group_node.begin())].push_back(i);
            }
        }
        bool runs = true;
        size_t largest = 0;
        for (const auto& g : groups) {
            largest = std::max(largest, g.size());
            for (size_t k = 2; k < g.size(); ++k) runs = runs && g[k] - g[k - 1] == g[1] - g[0];
        }
        const bool two_level = on && groups.size() > 1 && largest > 1 && runs;
        const ishmemi::node_groups& got = ishmemi::team_nodes[static_cast<size_t>(team)];
        ASSERT_EQ(got.part >= 0, two_level)
            << groups.size() << " nodes, largest group " << largest << (runs ? "" : ", a group not evenly spaced");
        if (!two_level) return;
        ASSERT_EQ(got.first.size(), groups.size());
        const int mine = ishmem_team_my_pe(team);
        for (size_t g = 0; g < groups.size(); ++g) {
            EXPECT_EQ(got.first[g], groups[g][0]) << "group " << g;
            EXPECT_EQ(got.count[g], static_cast<int>(groups[g].size())) << "group " << g;
            for (int i : groups[g])
                EXPECT_EQ(got.group_of[static_cast<size_t>(i)], static_cast<int>(g)) << "member " << i;
            if (std::find(groups[g].begin(), groups[g].end(), mine) == groups[g].end()) continue;
            // This PE's part: the team of its group, in member order.
            const ishmemi::team_t& part = ishmemi::teams[got.part];
            EXPECT_EQ(part.size, static_cast<int>(groups[g].size()));
            for (int k = 0; k < part.size; ++k)
                EXPECT_EQ(part.world_pe(k), pes[static_cast<size_t>(groups[g][static_cast<size_t>(k)])])
                    << "member " << k;
        }
    };
    check(ISHMEM_TEAM_WORLD, world_pes(), "world");
    const std::vector<int> all = world_pes();
    struct shape {
        int start, stride, size;
    };
    for (shape sh : {shape{0, 1, w.n}, shape{1, 1, w.n - 1}, shape{0, 2, (w.n + 1) / 2}, shape{0, 1, w.n - 1}}) {
        if (sh.size < 1) continue;
        owned_team t;
        ASSERT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, sh.start, sh.stride, sh.size, nullptr, 0, t.out()), 0);
        const std::vector<int> pes = strided(all, sh.start, sh.stride, sh.size);
        const std::string what = "split " + show_pes(pes);
        if (t.get() != ISHMEM_TEAM_INVALID) check(t.get(), pes, what.c_str());
        ishmem_barrier_all();
    }
}

}  // namespace

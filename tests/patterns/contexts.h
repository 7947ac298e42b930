// Patterns for communication contexts: create, team_create_ctx, get_team, fence, quiet and
// translate_pe. Contexts are local to a PE; the patterns check the handles each PE gets and that a
// context's PE numbers reach the right PEs (shmem.h's shmem_ctx_ forms pass their PE through
// ishmemx_ctx_translate_pe's checked twin; tests/c/openshmem_test.c runs them).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ishmemx.h"
#include "patterns/common.h"

namespace ishmem_testing::patterns {

namespace ctx_detail {

// The even PEs of the world, members get the team (others ISHMEM_TEAM_INVALID).
inline ishmem_team_t even_team() {
    const world w;
    ishmem_team_t t = ISHMEM_TEAM_INVALID;
    EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, (w.n + 1) / 2, nullptr, 0, &t), 0);
    return t;
}

// A put through the context's PE numbering lands on the PE it names: each member writes its world
// PE into slot [its team index] of the next member's array; the next member checks.
inline void expect_ring_through(ishmemx_ctx_t ctx, ishmem_team_t team, const std::string& what) {
    const int me = ishmem_team_my_pe(team), size = ishmem_team_n_pes(team);
    sym_array<long> slots(64);
    ASSERT_TRUE(slots);
    if (me >= 0) {
        const int next = ishmemx_ctx_translate_pe(ctx, (me + 1) % size);
        EXPECT_EQ(next, ishmem_team_translate_pe(team, (me + 1) % size, ISHMEM_TEAM_WORLD)) << what;
        if (next >= 0) {
            ishmem_long_p(slots.get() + me, ishmem_my_pe(), next);
            ishmemx_ctx_quiet(ctx);
        }
    }
    ishmem_barrier_all();
    if (me >= 0) {
        const int prev = (me - 1 + size) % size;
        EXPECT_EQ(slots.load(static_cast<std::size_t>(prev)), ishmem_team_translate_pe(team, prev, ISHMEM_TEAM_WORLD))
            << what << ": the put of team PE " << prev;
    }
}

}  // namespace ctx_detail

// ctx_create: distinct live handles over the world team, with any mix of options; bad options give
// nonzero and ISHMEMX_CTX_INVALID; a PE can hold ctx_max contexts and no more; destroyed handles
// are reused.
template <class Create> void ctx_create(Create create) {
    using namespace ctx_detail;
    std::set<ishmemx_ctx_t> made;
    for (long options : {0L, ISHMEMX_CTX_SERIALIZED, ISHMEMX_CTX_PRIVATE, ISHMEMX_CTX_NOSTORE,
                         ISHMEMX_CTX_SERIALIZED | ISHMEMX_CTX_PRIVATE | ISHMEMX_CTX_NOSTORE}) {
        ishmemx_ctx_t ctx = ISHMEMX_CTX_DEFAULT;
        EXPECT_EQ(create(options, &ctx), 0) << "ishmemx_ctx_create with options " << options;
        EXPECT_NE(ctx, ISHMEMX_CTX_DEFAULT);
        EXPECT_NE(ctx, ISHMEMX_CTX_INVALID);
        EXPECT_TRUE(made.insert(ctx).second) << "handle " << ctx << " given twice";
        ishmem_team_t team = ISHMEM_TEAM_INVALID;
        EXPECT_EQ(ishmemx_ctx_get_team(ctx, &team), 0);
        EXPECT_EQ(team, ISHMEM_TEAM_WORLD) << "a context from ishmemx_ctx_create is over the world team";
    }
    expect_ring_through(*made.begin(), ISHMEM_TEAM_WORLD, "ishmemx_ctx_create's context");

    ishmemx_ctx_t bad = ISHMEMX_CTX_DEFAULT;
    EXPECT_NE(create(1L << 20, &bad), 0) << "ishmemx_ctx_create with an unknown option";
    EXPECT_EQ(bad, ISHMEMX_CTX_INVALID);

    // fill the table, check that one more fails, then free everything
    std::vector<ishmemx_ctx_t> all(made.begin(), made.end());
    for (;;) {
        ishmemx_ctx_t ctx = ISHMEMX_CTX_DEFAULT;
        if (create(0, &ctx) != 0) {
            EXPECT_EQ(ctx, ISHMEMX_CTX_INVALID) << "a failed ishmemx_ctx_create";
            break;
        }
        all.push_back(ctx);
        if (all.size() > 100000) break;  // no limit at all: reported below
    }
    EXPECT_EQ(all.size(), 1024u) << "contexts a PE may hold besides the default one";
    const ishmemx_ctx_t reused = all.back();
    for (ishmemx_ctx_t ctx : all) ishmemx_ctx_destroy(ctx);
    EXPECT_EQ(ishmemx_ctx_translate_pe(reused, 0), -1) << "a destroyed context";
    ishmemx_ctx_t again = ISHMEMX_CTX_INVALID;
    EXPECT_EQ(create(0, &again), 0) << "ishmemx_ctx_create after destroying every context";
    ishmemx_ctx_destroy(again);
    ishmemx_ctx_destroy(ISHMEMX_CTX_INVALID);  // ignored
}

// team_create_ctx: a context over a strided team numbers PEs in the team; a PE outside the team
// (ISHMEM_TEAM_INVALID) gets nonzero and ISHMEMX_CTX_INVALID; destroying the team destroys the
// context.
template <class TeamCreate> void team_create_ctx(TeamCreate team_create) {
    using namespace ctx_detail;
    const world w;
    const ishmem_team_t team = even_team();
    ishmemx_ctx_t ctx = ISHMEMX_CTX_DEFAULT;
    if (w.me % 2 == 0) {
        EXPECT_EQ(team_create(team, ISHMEMX_CTX_PRIVATE, &ctx), 0);
        ishmem_team_t got = ISHMEM_TEAM_INVALID;
        EXPECT_EQ(ishmemx_ctx_get_team(ctx, &got), 0);
        EXPECT_EQ(got, team);
        for (int i = 0; i < ishmem_team_n_pes(team); ++i)
            EXPECT_EQ(ishmemx_ctx_translate_pe(ctx, i), 2 * i) << "team PE " << i;
        EXPECT_EQ(ishmemx_ctx_translate_pe(ctx, ishmem_team_n_pes(team)), -1) << "a PE past the team's end";
        EXPECT_NE(team_create(team, 1L << 9, &ctx), 0) << "an unknown option";
        EXPECT_EQ(ctx, ISHMEMX_CTX_INVALID);
        EXPECT_EQ(team_create(team, 0, &ctx), 0);
    } else {
        EXPECT_NE(team_create(team, 0, &ctx), 0) << "ishmemx_team_create_ctx on ISHMEM_TEAM_INVALID";
        EXPECT_EQ(ctx, ISHMEMX_CTX_INVALID);
    }
    expect_ring_through(ctx, team, "ishmemx_team_create_ctx's context");
    ishmem_team_destroy(team);
    EXPECT_EQ(ishmemx_ctx_translate_pe(ctx, 0), -1) << "a context whose team was destroyed";
    ishmemx_ctx_t world_ctx = ISHMEMX_CTX_INVALID;
    EXPECT_EQ(team_create(ISHMEM_TEAM_WORLD, 0, &world_ctx), 0);
    EXPECT_EQ(ishmemx_ctx_translate_pe(world_ctx, w.right), w.right);
    ishmemx_ctx_destroy(world_ctx);
}

// ctx_get_team: the default context is over the world team; ISHMEMX_CTX_INVALID gives nonzero and
// ISHMEM_TEAM_INVALID.
template <class GetTeam> void ctx_get_team(GetTeam get_team) {
    ishmem_team_t team = ISHMEM_TEAM_INVALID;
    EXPECT_EQ(get_team(ISHMEMX_CTX_DEFAULT, &team), 0);
    EXPECT_EQ(team, ISHMEM_TEAM_WORLD);
    team = ISHMEM_TEAM_WORLD;
    EXPECT_NE(get_team(ISHMEMX_CTX_INVALID, &team), 0);
    EXPECT_EQ(team, ISHMEM_TEAM_INVALID);
    ishmemx_ctx_t ctx = ISHMEMX_CTX_INVALID;
    ASSERT_EQ(ishmemx_ctx_create(0, &ctx), 0);
    EXPECT_EQ(get_team(ctx, &team), 0);
    EXPECT_EQ(team, ISHMEM_TEAM_WORLD);
    ishmemx_ctx_destroy(ctx);
}

namespace ctx_detail {

// Data put through a context, then the routine, then a flag: the PE that sees the flag sees the data.
template <class Order> void data_then_flag(Order order, const std::string& what) {
    const world w;
    constexpr std::size_t n = 256;
    sym_array<long> data(n), flag(1);
    ASSERT_TRUE(data && flag);
    ishmemx_ctx_t ctx = ISHMEMX_CTX_INVALID;
    ASSERT_EQ(ishmemx_ctx_create(0, &ctx), 0);
    const std::vector<long> mine = pe_values<long>(w.me, n);
    ishmem_long_put(data.get(), mine.data(), n, ishmemx_ctx_translate_pe(ctx, w.right));
    order(ctx);
    ishmem_long_atomic_set(flag.get(), 1, ishmemx_ctx_translate_pe(ctx, w.right));
    if (wait_equal(flag.get(), 1L, what + ": flag from " + on_pe(w.left)))
        expect_elements(
            data.read(0, n), [&](std::size_t i) { return make_value<long>(w.left, i); }, what + ": data put before it");
    order(ISHMEMX_CTX_INVALID);  // ignored
    order(ISHMEMX_CTX_DEFAULT);
    ishmem_barrier_all();
    ishmemx_ctx_destroy(ctx);
}

}  // namespace ctx_detail

template <class Fence> void ctx_fence(Fence fence) { ctx_detail::data_then_flag(fence, "ishmemx_ctx_fence"); }

template <class Quiet> void ctx_quiet(Quiet quiet) { ctx_detail::data_then_flag(quiet, "ishmemx_ctx_quiet"); }

// ctx_translate_pe: the identity on the default context for PEs of the job, -1 outside it and for
// ISHMEMX_CTX_INVALID.
template <class Translate> void ctx_translate_pe(Translate translate) {
    const world w;
    for (int pe = 0; pe < w.n; ++pe) EXPECT_EQ(translate(ISHMEMX_CTX_DEFAULT, pe), pe);
    EXPECT_EQ(translate(ISHMEMX_CTX_DEFAULT, -1), -1);
    EXPECT_EQ(translate(ISHMEMX_CTX_DEFAULT, w.n), -1);
    EXPECT_EQ(translate(ISHMEMX_CTX_INVALID, 0), -1);
    EXPECT_EQ(translate(5000, 0), -1) << "a handle that is no context";
}

}  // namespace ishmem_testing::patterns

// Patterns for the team queries (team_my_pe, team_n_pes, team_translate_pe) and the strided team
// that the collective patterns also run over.
#pragma once

#include "patterns/common.h"

namespace ishmem_testing::patterns {

// Every second PE of the world (PEs 0, 2, ...), made once, on first use, by all PEs together (they
// run the same tests in the same order); kept for the rest of the run. ISHMEM_TEAM_INVALID on
// the PEs outside it.
inline ishmem_team_t strided_test_team() {
    static const ishmem_team_t team = [] {
        ishmem_team_t t = ISHMEM_TEAM_INVALID;
        const int n = ishmem_n_pes();
        EXPECT_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &t), 0)
            << "making the strided test team";
        return t;
    }();
    return team;
}

// This PE's node as TEAM_SHARED and TEAM_NODE hold it: {my index, PE count} (the whole world on one
// node; Teams.PredefinedTeams checks the node teams against the host names).
inline std::pair<int, int> node_index_and_size() {
    const world w;
    int index = 0, size = 0;
    for (int pe = 0; pe < w.n; ++pe)
        if (same_node(pe)) {
            index += pe < w.me ? 1 : 0;
            ++size;
        }
    return {index, size};
}

template <class MyPe> void team_my_pe(MyPe my_pe) {
    const world w;
    EXPECT_EQ(my_pe(ISHMEM_TEAM_WORLD), w.me);
    EXPECT_EQ(my_pe(ISHMEM_TEAM_SHARED), node_index_and_size().first);
    EXPECT_EQ(my_pe(ISHMEMX_TEAM_NODE), node_index_and_size().first);
    EXPECT_EQ(my_pe(ISHMEM_TEAM_INVALID), -1);
    EXPECT_EQ(my_pe(strided_test_team()), w.me % 2 == 0 ? w.me / 2 : -1);
}

template <class NPes> void team_n_pes(NPes n_pes) {
    const world w;
    EXPECT_EQ(n_pes(ISHMEM_TEAM_WORLD), w.n);
    EXPECT_EQ(n_pes(ISHMEM_TEAM_SHARED), node_index_and_size().second);
    EXPECT_EQ(n_pes(ISHMEM_TEAM_INVALID), -1);
    EXPECT_EQ(n_pes(strided_test_team()), w.me % 2 == 0 ? (w.n + 1) / 2 : -1);
}

template <class Translate> void team_translate_pe(Translate translate) {
    const world w;
    const ishmem_team_t s = strided_test_team();
    for (int pe = 0; pe < w.n; ++pe) EXPECT_EQ(translate(ISHMEM_TEAM_WORLD, pe, ISHMEM_TEAM_WORLD), pe);
    EXPECT_EQ(translate(ISHMEM_TEAM_WORLD, w.n, ISHMEM_TEAM_WORLD), -1);
    EXPECT_EQ(translate(ISHMEM_TEAM_WORLD, 0, ISHMEM_TEAM_INVALID), -1);
    if (w.me % 2 == 0) {
        for (int i = 0; i < (w.n + 1) / 2; ++i) EXPECT_EQ(translate(s, i, ISHMEM_TEAM_WORLD), 2 * i);
        for (int pe = 0; pe < w.n; ++pe) EXPECT_EQ(translate(ISHMEM_TEAM_WORLD, pe, s), pe % 2 == 0 ? pe / 2 : -1);
    } else {
        EXPECT_EQ(translate(s, 0, ISHMEM_TEAM_WORLD), -1) << "a PE outside the team has no valid handle";
    }
}

}  // namespace ishmem_testing::patterns

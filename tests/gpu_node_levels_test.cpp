// Which members of a team over nodes the CUDA backend's two-level collectives treat as each node's
// first and as this PE's node (ishmem/cuda/device_state.h, set_node_levels; coll/nodes.cuh reads
// the masks): the host computes them when a team is made, so they are checked here on any machine.
// Plain host checks; no PE communication.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ishmem/cuda/device_state.h"

namespace {

using ishmemi::cuda::device_team;

struct masks {
    std::string firsts, mine;  // one character per member: 1 set, 0 clear
    int levels;
};

// The masks for members on nodes[m], as seen from node `mine`.
masks levels_of(const std::vector<int>& nodes, int mine) {
    device_team t{};
    t.size = static_cast<int>(nodes.size());
    ishmemi::cuda::set_node_levels(
        t, [&](int m) { return nodes[static_cast<size_t>(m)]; }, mine);
    masks out{"", "", t.node_levels};
    for (int m = 0; m < t.size; ++m) {
        out.firsts += ((t.node_firsts[m >> 6] >> (m & 63)) & 1) ? '1' : '0';
        out.mine += ((t.my_node[m >> 6] >> (m & 63)) & 1) ? '1' : '0';
    }
    return out;
}

TEST(GpuNodeLevels, TwoNodesOfTwoConsecutiveAndCyclic) {
    masks a = levels_of({0, 0, 2, 2}, 2);  // ISHMEM_NODE_SPLIT=2, seen from PE 2 or 3
    EXPECT_EQ(a.firsts, "1010");
    EXPECT_EQ(a.mine, "0011");
    EXPECT_EQ(a.levels, 1);
    masks c = levels_of({0, 1, 0, 1}, 0);  // cyclic:2, seen from PE 0 or 2
    EXPECT_EQ(c.firsts, "1100");
    EXPECT_EQ(c.mine, "1010");
    EXPECT_EQ(c.levels, 1);
}

TEST(GpuNodeLevels, OneMemberPerNodeHasOneLevel) {
    masks m = levels_of({0, 1, 2, 3}, 1);
    EXPECT_EQ(m.firsts, "1111");
    EXPECT_EQ(m.mine, "0100");
    EXPECT_EQ(m.levels, 0) << "nothing to pass on";
}

TEST(GpuNodeLevels, UnevenNodes) {
    masks m = levels_of({0, 1, 1, 3}, 1);  // nodes of 1, 2 and 1 members
    EXPECT_EQ(m.firsts, "1101");
    EXPECT_EQ(m.mine, "0110");
    EXPECT_EQ(m.levels, 1);
}

TEST(GpuNodeLevels, MembersPastTheFirstWordOfTheMasks) {
    // 128 members, node = member / 3 with the last 32 all on one node: bits in both words.
    std::vector<int> nodes(device_team::node_mask_bits);
    for (size_t m = 0; m < nodes.size(); ++m) nodes[m] = m < 96 ? static_cast<int>(m / 3) : 500;
    masks m = levels_of(nodes, 500);
    for (size_t i = 0; i < nodes.size(); ++i) {
        SCOPED_TRACE("member " + std::to_string(i));
        EXPECT_EQ(m.firsts[i], (i < 96 ? i % 3 == 0 : i == 96) ? '1' : '0');
        EXPECT_EQ(m.mine[i], i >= 96 ? '1' : '0');
    }
    EXPECT_EQ(m.levels, 1);
}

}  // namespace

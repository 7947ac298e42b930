// How the CUDA backend's medium stage cuts a call into parts and which calls it takes
// (ishmem/cuda/device_state.h): host and device code call these same functions, so a wrong cut
// would show on every machine, GPU or not. Plain host checks; no PE communication.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "ishmem/cuda/device_state.h"

namespace {

using ishmemi::cuda::gpu_medium_slot;
using ishmemi::cuda::medium_chunk;
using ishmemi::cuda::medium_parts_with_data;
using ishmemi::cuda::medium_slots;
using ishmemi::cuda::medium_piece;

TEST(GpuMediumCut, PartsCoverTheBlockInSixteenByteRanges) {
    for (size_t part_min : {size_t{16}, size_t{4096}, size_t{8192}, size_t{262144}}) {
        for (size_t bytes : {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{4095}, size_t{4096}, size_t{4097},
                             size_t{16396}, size_t{65536}, size_t{65537}, size_t{240004}, size_t{262143},
                             size_t{262144}}) {
            SCOPED_TRACE("part_min " + std::to_string(part_min) + ", bytes " + std::to_string(bytes));
            const size_t chunk = medium_chunk(bytes, part_min);
            const unsigned parts = medium_parts_with_data(bytes, part_min);
            EXPECT_EQ(chunk % 16, 0u) << "a part starts 16-byte aligned";
            EXPECT_GE(chunk, part_min) << "a part holds at least part_min bytes";
            EXPECT_GE(parts, 1u);
            EXPECT_LE(parts, static_cast<unsigned>(gpu_medium_slot::parts));
            EXPECT_LT((parts - 1) * chunk, bytes) << "every part has data";
            EXPECT_GE(parts * chunk, bytes) << "the parts cover the block";
        }
    }
    // Large blocks use all 16 parts; small ones as few as part_min allows.
    EXPECT_EQ(medium_parts_with_data(262144, 4096), 16u);
    EXPECT_EQ(medium_parts_with_data(16396, 4096), 5u);
    EXPECT_EQ(medium_parts_with_data(16396, 65536), 1u);
}

TEST(GpuMediumCut, TakesCallsThatFitAHalfOnTheFirstSlots) {
    const unsigned limit = 262144, one = 1;  // one piece: only calls that fit the limit
    EXPECT_EQ(medium_piece(0, limit, one, 1, 262144), 262144u) << "a broadcast of exactly the limit, whole";
    EXPECT_EQ(medium_piece(0, limit, one, 1, 262145), 0u);
    EXPECT_EQ(medium_piece(0, limit, one, 2, 131072), 131072u) << "two blocks of half the limit";
    EXPECT_EQ(medium_piece(0, limit, one, 2, 131073), 0u) << "blocks are padded to 16 bytes in the stage";
    EXPECT_EQ(medium_piece(medium_slots - 1, limit, one, 4, 100), 100u) << "the last slot with a stage";
    EXPECT_EQ(medium_piece(medium_slots, limit, one, 4, 100), 0u) << "slots past medium_slots have no stage";
    EXPECT_EQ(medium_piece(0, 0, 64, 1, 16), 0u) << "a limit of 0 turns the stage off, pieces or not";
    EXPECT_LE(limit, gpu_medium_slot::half_bytes) << "the largest limit fits a stage half";
}

TEST(GpuMediumCut, LargerCallsGoInPiecesThatFitTheLimit) {
    const unsigned limit = 262144;
    // A broadcast of 1 MiB: four pieces of the limit; one byte more needs a fifth.
    EXPECT_EQ(medium_piece(0, limit, 4, 1, 1048576), 262144u);
    EXPECT_EQ(medium_piece(0, limit, 4, 1, 1048577), 0u);
    EXPECT_EQ(medium_piece(0, limit, 5, 1, 1048577), 262144u);
    // Gathers on 3 members: each piece carries the largest 16-byte multiple of each block that fits.
    const size_t piece3 = medium_piece(0, limit, 8, 3, 500000);
    EXPECT_EQ(piece3 % 16, 0u);
    EXPECT_LE(3 * piece3, limit);
    EXPECT_GT(3 * (piece3 + 16), limit) << "no larger 16-byte multiple fits";
    EXPECT_EQ(medium_piece(0, limit, 5, 3, 500000), 0u) << "500000 bytes need 6 pieces of " << piece3;
    EXPECT_EQ(medium_piece(0, limit, 6, 3, 500000), piece3);
    // For every size and count the pieces cover the block, each within the limit, with at most max pieces.
    for (size_t blocks : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{7}})
        for (size_t bytes : {size_t{16}, size_t{65537}, size_t{262144}, size_t{262160}, size_t{1000003}, size_t{4194304}})
            for (unsigned max : {1u, 2u, 4u, 16u}) {
                const size_t piece = medium_piece(2, limit, max, blocks, bytes);
                if (piece == 0) continue;
                SCOPED_TRACE("blocks " + std::to_string(blocks) + ", bytes " + std::to_string(bytes));
                EXPECT_LE(blocks * ((std::min(piece, bytes) + 15) / 16 * 16), limit);
                EXPECT_LE((bytes + piece - 1) / piece, max);
                if (piece < bytes) EXPECT_EQ(piece % 16, 0u) << "later pieces start 16-byte aligned";
            }
}

}  // namespace

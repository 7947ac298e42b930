// How the CUDA backend's medium stage cuts a call into parts and which calls it takes
// (ishmem/cuda/device_state.h): host and device code call these same functions, so a wrong cut
// would show on every machine, GPU or not. Plain host checks; no PE communication.
#include <gtest/gtest.h>

#include <cstddef>

#include "ishmem/cuda/device_state.h"

namespace {

using ishmemi::cuda::gpu_medium_slot;
using ishmemi::cuda::medium_chunk;
using ishmemi::cuda::medium_parts_with_data;
using ishmemi::cuda::medium_slots;
using ishmemi::cuda::medium_takes;

TEST(GpuMediumCut, PartsCoverTheBlockInSixteenByteRanges) {
    for (size_t part_min : {size_t{16}, size_t{4096}, size_t{8192}, size_t{262144}}) {
        for (size_t bytes :
             {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{16396},
              size_t{65536}, size_t{65537}, size_t{240004}, size_t{262143}, size_t{262144}}) {
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
    const unsigned limit = 262144;
    EXPECT_TRUE(medium_takes(0, limit, 1, 262144)) << "a broadcast of exactly the limit";
    EXPECT_FALSE(medium_takes(0, limit, 1, 262145));
    EXPECT_TRUE(medium_takes(0, limit, 2, 131072)) << "two blocks of half the limit";
    EXPECT_FALSE(medium_takes(0, limit, 2, 131073)) << "blocks are padded to 16 bytes in the stage";
    EXPECT_TRUE(medium_takes(medium_slots - 1, limit, 4, 100)) << "the last slot with a stage";
    EXPECT_FALSE(medium_takes(medium_slots, limit, 4, 100)) << "slots past medium_slots have no stage";
    EXPECT_FALSE(medium_takes(0, 0, 1, 16)) << "a limit of 0 turns the stage off";
    EXPECT_LE(limit, gpu_medium_slot::half_bytes) << "the largest limit fits a stage half";
}

}  // namespace

// How the CUDA backend cuts a relayed broadcast into pieces (ishmem/cuda/device_state.h,
// plan_relay): every member computes the same cut from the size, the team's size and
// ISHMEM_GPU_BROADCAST_PIECE_BYTES, so a wrong cut would show on every machine, GPU or not. Plain
// host checks; no PE communication.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "ishmem/cuda/device_state.h"

namespace {

using ishmemi::cuda::gpu_sync_slot;
using ishmemi::cuda::plan_relay;
using ishmemi::cuda::relays;

TEST(GpuRelayCut, PiecesCoverTheArrayEvenlyOverTheCarriers) {
    for (int n : {3, 4, 5, 8, 17, 65}) {
        for (size_t least : {size_t{16}, size_t{4096}, size_t{262144}, size_t{1} << 20}) {
            for (size_t bytes : {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{400012}, size_t{1} << 20,
                                 size_t{4000012}, size_t{256} << 20, (size_t{256} << 20) + 3}) {
                SCOPED_TRACE("n " + std::to_string(n) + ", least " + std::to_string(least) + ", bytes " +
                             std::to_string(bytes));
                const auto plan = plan_relay(bytes, n, least);
                EXPECT_EQ(plan.count % (n - 1), 0) << "every carrier carries as many pieces";
                EXPECT_GE(plan.count, n - 1);
                EXPECT_LE(plan.count, gpu_sync_slot::max_pieces);
                EXPECT_EQ(plan.piece % 16, 0u) << "pieces start 16-byte aligned";
                EXPECT_GE(plan.piece * static_cast<size_t>(plan.count), bytes) << "the pieces cover the array";
                EXPECT_LT(plan.piece, (bytes + plan.count - 1) / plan.count + 16) << "no piece larger than needed";
                if (plan.count + (n - 1) <= gpu_sync_slot::max_pieces)  // not at the cap
                    EXPECT_LE(plan.piece, (least + 15) / 16 * 16) << "pieces of about the least bytes";
            }
        }
    }
    // On four members: a 1 MiB array in 6 pieces (2 per carrier); 256 MiB in 63 (the cap, 21 each).
    EXPECT_EQ(plan_relay(size_t{1} << 20, 4, 262144).count, 6);
    EXPECT_EQ(plan_relay(size_t{256} << 20, 4, 262144).count, 63);
    EXPECT_EQ(plan_relay(400012, 4, 262144).count, 3);
}

TEST(GpuRelayCut, RelaysOnThreeTo65MembersUnlessTurnedOff) {
    EXPECT_FALSE(relays(2, 262144)) << "with one other member there is nobody to pass pieces on to";
    EXPECT_TRUE(relays(3, 262144));
    EXPECT_TRUE(relays(65, 262144)) << "64 carriers, one piece each";
    EXPECT_FALSE(relays(66, 262144)) << "more carriers than piece flags";
    EXPECT_FALSE(relays(4, 0)) << "a piece size of 0 turns the relay off";
}

}  // namespace

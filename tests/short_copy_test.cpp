// The short copies of the eager collectives (runtime/include/ishmem/impl/short_copy.h): every size
// up to and past short_copy_max, every alignment of a 64-byte line, apart and overlapping both ways,
// against memmove; and zero_bytes. Process-local: the same on every PE.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "ishmem/impl/short_copy.h"

namespace {

constexpr std::size_t span = 256;

unsigned char pattern(std::size_t i) { return static_cast<unsigned char>(i * 37 + 11); }

void fill(unsigned char* b) {
    for (std::size_t i = 0; i < span; ++i) b[i] = pattern(i);
}

std::string where(std::size_t n, std::size_t d, std::size_t s) {
    return "n=" + std::to_string(n) + " dest offset " + std::to_string(d) + " source offset " + std::to_string(s);
}

TEST(ShortCopy, MoveBytesIsMemmoveForEverySizeAndOverlap) {
    alignas(64) unsigned char got[span], want[span];
    for (std::size_t n = 0; n <= ishmemi::short_copy_max + 8; ++n)
        for (std::size_t d = 0; d < 80; d += 3)
            for (std::size_t s = 0; s < 80; s += 5) {
                if (d + n > span || s + n > span) continue;
                fill(got);
                fill(want);
                ishmemi::move_bytes(got + d, got + s, n);  // one buffer: apart or overlapping
                std::memmove(want + d, want + s, n);
                ASSERT_EQ(std::memcmp(got, want, span), 0) << where(n, d, s);
            }
}

TEST(ShortCopy, MoveShortBetweenBuffers) {
    alignas(64) unsigned char from[span], to[span], want[span];
    fill(from);
    for (std::size_t n = 0; n <= ishmemi::short_copy_max; ++n)
        for (std::size_t off = 0; off < 64; ++off) {
            std::memset(to, 0xEE, span);
            std::memset(want, 0xEE, span);
            ishmemi::move_short(to + off, from + (63 - off), n);
            std::memcpy(want + off, from + (63 - off), n);
            ASSERT_EQ(std::memcmp(to, want, span), 0) << where(n, off, 63 - off);
        }
}

TEST(ShortCopy, ZeroBytesTouchesExactlyItsRange) {
    alignas(64) unsigned char got[span], want[span];
    for (std::size_t n = 0; n <= ishmemi::short_copy_max + 8; ++n)
        for (std::size_t off = 0; off < 64; off += 7) {
            fill(got);
            fill(want);
            ishmemi::zero_bytes(got + off, n);
            std::memset(want + off, 0, n);
            ASSERT_EQ(std::memcmp(got, want, span), 0) << where(n, off, 0);
        }
}

}  // namespace

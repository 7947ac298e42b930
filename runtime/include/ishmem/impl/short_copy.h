// Copies of a few bytes, for the small messages of the eager collectives.
//
// A memcpy of a variable size that the compiler knows to be bounded (a message of at most an
// inbox) is expanded inline as a string instruction (rep movs/stos), whose start-up costs more
// than the copy of a word; on 2 PEs a scan of 8 B spent about a sixth of its time there. These
// copies use at most four fixed-size moves instead: two overlapping ones of the largest power of
// two that fits, as C libraries do for short copies.
#pragma once

#include <cstddef>
#include <cstring>

#include "ishmem/impl/tuning.h"

namespace ishmemi {

// Bytes up to which move_short copies.
inline constexpr size_t short_copy_max = tuning::short_copy_max.value;

namespace detail {
// The first and the last K bytes of n (K <= n <= 2 K): every load before any store, so that
// overlapping buffers are copied as memmove would.
template <size_t K> inline void move_two(unsigned char* d, const unsigned char* s, size_t n) {
    unsigned char a[K], b[K];
    std::memcpy(a, s, K);
    std::memcpy(b, s + n - K, K);
    std::memcpy(d, a, K);
    std::memcpy(d + n - K, b, K);
}
}  // namespace detail

// memmove of n <= short_copy_max bytes.
inline void move_short(void* dest, const void* source, size_t n) {
    auto* d = static_cast<unsigned char*>(dest);
    const auto* s = static_cast<const unsigned char*>(source);
    if (n >= 32)
        detail::move_two<32>(d, s, n);
    else if (n >= 16)
        detail::move_two<16>(d, s, n);
    else if (n >= 8)
        detail::move_two<8>(d, s, n);
    else if (n >= 4)
        detail::move_two<4>(d, s, n);
    else if (n) {
        const unsigned char a = s[0], b = s[n / 2], c = s[n - 1];
        d[0] = a;
        d[n / 2] = b;
        d[n - 1] = c;
    }
}

// memmove of any size: short ones as above, longer ones by the C library.
inline void move_bytes(void* dest, const void* source, size_t n) {
    if (n <= short_copy_max)
        move_short(dest, source, n);
    else
        std::memmove(dest, source, n);
}

// n zero bytes at dest.
inline void zero_bytes(void* dest, size_t n) {
    static constexpr unsigned char zeros[short_copy_max] = {};
    if (n <= short_copy_max)
        move_short(dest, zeros, n);
    else
        std::memset(dest, 0, n);
}

}  // namespace ishmemi

// Test values that are exact in every element type the patterns run over: the integer types from
// char to 64 bits, float, double, and ishmemi::uint128_t (the element of the 128-bit sized forms).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>
#include <type_traits>

#include "ishmem.h"

namespace ishmem_testing::patterns {

template <class T> inline constexpr bool is_uint128_v = std::is_same_v<T, ishmemi::uint128_t>;

// Element i of PE pe's data. Never 0 and never sentinel<T>(); values of PEs 0..3 differ at the same
// i, and consecutive i differ. Signed types and floating types get negative values too (i % 3 == 1).
//   1-byte integers:  |v| in [1, 113]
//   2-byte integers:  |v| in [1, 31993]
//   4-byte integers:  |v| < 2^30 (the PE in bits 24..29)
//   8-byte integers:  |v| < 2^47 (the PE also in bits 40..46, so that a 32-bit truncation shows)
//   float / double:   pe * 2^16 + (i mod 2^16) + 0.5 (float) or pe * 2^32 + i + 0.25 (double): exact
//   uint128_t:        lo = make_value<uint64_t>, hi a different 64-bit pattern
template <class T> T make_value(int pe, std::size_t i) {
    const auto p = static_cast<std::uint64_t>(pe) % 64;
    if constexpr (is_uint128_v<T>) {
        const std::uint64_t lo = make_value<std::uint64_t>(pe, i);
        return T{lo, (lo << 7) ^ 0xC3A5C3A5C3A5C3A5ull ^ (p << 56)};
    } else if constexpr (std::is_floating_point_v<T>) {
        double v = sizeof(T) == 4 ? static_cast<double>(p * 65536 + i % 65536) + 0.5
                                  : static_cast<double>((p << 32) + (i & 0xFFFFFFFFu)) + 0.25;
        if (i % 3 == 1) v = -v;
        return static_cast<T>(v);
    } else {
        static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "make_value: unsupported type");
        std::uint64_t v;
        if constexpr (sizeof(T) == 1)
            v = (i * 7 + p * 31) % 113 + 1;
        else if constexpr (sizeof(T) == 2)
            v = (p % 4) * 8000 + i % 7993 + 1;
        else if constexpr (sizeof(T) == 4)
            v = (p << 24) + (i & 0xFFFFFF) + 1;
        else
            v = ((p + 1) << 40) + (p << 24) + (i & 0xFFFFFF) + 1;
        if constexpr (std::is_signed_v<T>)
            if (i % 3 == 1) return static_cast<T>(-static_cast<std::int64_t>(v));
        return static_cast<T>(v);
    }
}

// What untouched memory holds: every byte 0x7F. make_value never produces it.
template <class T> T sentinel() {
    T v;
    std::memset(static_cast<void*>(&v), 0x7F, sizeof v);
    return v;
}

// Exact equality: bitwise for the 128-bit struct, == otherwise (values here are never NaN).
template <class T> bool equal(const T& a, const T& b) {
    if constexpr (is_uint128_v<T>)
        return std::memcmp(&a, &b, sizeof a) == 0;
    else
        return a == b;
}

// A readable form for failure messages: characters as numbers, floats with all digits.
template <class T> std::string show(const T& v) {
    std::ostringstream os;
    if constexpr (is_uint128_v<T>)
        os << std::hex << "{lo=0x" << v.lo << ", hi=0x" << v.hi << "}";
    else if constexpr (std::is_floating_point_v<T>)
        os << std::setprecision(sizeof(T) == 4 ? 9 : 17) << v;
    else if constexpr (sizeof(T) == 1)
        os << static_cast<int>(v);
    else
        os << v;
    return os.str();
}

}  // namespace ishmem_testing::patterns

// Element types and operators of the OpenSHMEM routines that shmem.h maps onto the library's
// read-every-member reductions (openshmem_active_sets.cpp, openshmem_team_reduce.cpp): the
// active-set to_all reductions and the long double and complex team reductions. The numbers are
// those of the SHMEMI_ELEM_ and SHMEMI_OP_ enumerators that templates/shmem.h.j2 declares.
#pragma once

#include <complex>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "ishmem/impl/collectives.h"  // coll::combine, the operators every reduction uses
#include "ishmem/impl/runtime.h"

namespace ishmemi::openshmem {

enum elem : int { e_short, e_int, e_long, e_longlong, e_float, e_double, e_longdouble, e_complexf, e_complexd };
// The library's operators (coll::op_kind), under the names shmem.h's SHMEMI_OP_ numbers mirror.
enum op : int {
    o_and = coll::op_and,
    o_or = coll::op_or,
    o_xor = coll::op_xor,
    o_max = coll::op_max,
    o_min = coll::op_min,
    o_sum = coll::op_sum,
    o_prod = coll::op_prod
};

inline const char* op_name(int o) {
    static const char* const names[] = {"and", "or", "xor", "max", "min", "sum", "prod"};
    return o >= 0 && o <= o_prod ? names[o] : "?";
}

// std::complex<T> has the layout of C's T _Complex (two T, real part first).
template <class T> constexpr bool is_complex = false;
template <class T> constexpr bool is_complex<std::complex<T>> = true;

// Calls f(std::integral_constant<int, coll::op_...>) for operator o, if op_defined allows it for T
// (nothing otherwise).
template <class T, class F> void with_op(int o, F&& f) {
    using coll::op_and, coll::op_or, coll::op_xor, coll::op_max, coll::op_min, coll::op_sum, coll::op_prod;
    if constexpr (std::is_integral_v<T>) {
        if (o == o_and) return f(std::integral_constant<int, op_and>{});
        if (o == o_or) return f(std::integral_constant<int, op_or>{});
        if (o == o_xor) return f(std::integral_constant<int, op_xor>{});
    }
    if constexpr (!is_complex<T>) {
        if (o == o_max) return f(std::integral_constant<int, op_max>{});
        if (o == o_min) return f(std::integral_constant<int, op_min>{});
    }
    if (o == o_sum) return f(std::integral_constant<int, op_sum>{});
    if (o == o_prod) return f(std::integral_constant<int, op_prod>{});
}

// acc[i] = acc[i] o in[i] for i < n, with the library's operators (coll::combine); o must be one
// that op_defined allows for T (the others do nothing).
template <class T> void combine(int o, T* acc, const T* in, size_t n) {
    with_op<T>(o, [&](auto op) {
        for (size_t i = 0; i < n; ++i) acc[i] = coll::combine<decltype(op)::value>(acc[i], in[i]);
    });
}

// Calls f(T{}) with the C++ type of element e.
template <class F> auto with_elem(int e, F&& f) {
    switch (e) {
        case e_short:
            return f(short{});
        case e_int:
            return f(int{});
        case e_long:
            return f(long{});
        case e_longlong:
            return f((long long){});
        case e_float:
            return f(float{});
        case e_double:
            return f(double{});
        case e_longdouble:
            return f((long double){});
        case e_complexf:
            return f(std::complex<float>{});
        default:
            return f(std::complex<double>{});
    }
}

// Whether operator o is defined for element e (the bitwise ones for integers, max and min for real
// types, sum and prod for all).
inline bool op_allowed(int e, int o) {
    if (e < e_short || e > e_complexd || o < o_and || o > o_prod) return false;
    if (o <= o_xor) return e <= e_longlong;
    if (o <= o_min) return e <= e_longdouble;
    return true;
}

inline size_t elem_size(int e) {
    return with_elem(e, [](auto v) { return sizeof(v); });
}

}  // namespace ishmemi::openshmem

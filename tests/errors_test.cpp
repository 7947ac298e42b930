// Bad input: each call must stop the PE with one line naming the PE, the routine and the reason.
// Death tests: the call runs in a forked copy of this PE and fails in its argument checks.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include "harness/harness.h"

namespace {

struct Errors : ::testing::Test {
    int* sym = nullptr;
    void SetUp() override { sym = static_cast<int*>(ishmem_calloc(16, sizeof(int))); }
    void TearDown() override { ishmem_free(sym); }
};

TEST_F(Errors, PeOutOfRange) {
    const int n = ishmem_n_pes();
    int v = 1;
    EXPECT_ISHMEM_ERROR(ishmem_int_put(sym, &v, 1, n), "ishmem_int_put: PE " + std::to_string(n) + " is out of range");
    EXPECT_ISHMEM_ERROR(ishmem_int_p(sym, 1, -1), "ishmem_int_p: PE -1 is out of range");
    EXPECT_ISHMEM_ERROR(ishmem_long_atomic_add(reinterpret_cast<long*>(sym), 1, n + 5), "ishmem_long_atomic_add: PE");
    EXPECT_ISHMEM_ERROR(ishmem_ptr(sym, n), "ishmem_ptr: PE");
}

TEST_F(Errors, AddressOutsideSymmetricHeap) {
    int local[4] = {};
    int v = 1;
    EXPECT_ISHMEM_ERROR(ishmem_int_put(local, &v, 1, 0), "ishmem_int_put: dest .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_get(&v, local, 1, 0), "ishmem_int_get: source .* outside the symmetric heap");
    EXPECT_ISHMEM_ERROR(ishmem_int_atomic_fetch(local, 0),
                        "ishmem_int_atomic_fetch: source .* outside the symmetric heap");
    // inside at the start, but running past the end of the heap
    EXPECT_ISHMEM_ERROR(ishmem_putmem(sym, &v, size_t{1} << 50, 0),
                        "ishmem_putmem: dest .* runs past the end of the symmetric heap");
    uint64_t sig = 0;
    EXPECT_ISHMEM_ERROR(ishmem_int_put_signal(sym, &v, 1, &sig, 1, ISHMEM_SIGNAL_SET, 0),
                        "ishmem_int_put_signal: sig_addr .* outside the symmetric heap");
}

// A count whose size in bytes overflows size_t must fail its check, not wrap to a small copy:
// SIZE_MAX / 8 + 2 longs are 16 bytes modulo 2^64, and a stride of 2^61 longs spans 8.
TEST_F(Errors, SizesThatOverflow) {
    long* lsym = reinterpret_cast<long*>(sym);
    long v[2] = {};
    EXPECT_ISHMEM_ERROR(ishmem_long_put(lsym, v, SIZE_MAX / 8 + 2, 0),
                        "ishmem_long_put: dest .*: the size of the range overflows size_t");
    EXPECT_ISHMEM_ERROR(ishmem_long_get(v, lsym, SIZE_MAX / 8 + 2, 0),
                        "ishmem_long_get: source .*: the size of the range overflows size_t");
    EXPECT_ISHMEM_ERROR(ishmem_long_iput(lsym, v, ptrdiff_t{1} << 61, 1, 2, 0),
                        "ishmem_long_iput: dest .*: the size of the range overflows size_t");
    EXPECT_ISHMEM_ERROR(ishmem_putmem_nbi(sym, v, SIZE_MAX, 0), "ishmem_putmem_nbi: dest");
}

TEST_F(Errors, NullWithNonzeroCount) {
    EXPECT_ISHMEM_ERROR(ishmem_int_put(sym, nullptr, 3, 0), "ishmem_int_put: source is null with 3 elements");
    EXPECT_ISHMEM_ERROR(ishmem_getmem(nullptr, sym, 8, 0), "ishmem_getmem: dest is null");
    EXPECT_ISHMEM_ERROR(ishmemx_int_put_on_queue(sym, nullptr, 2, 0, ishmem_testing::test_queue()),
                        "ishmemx_int_put_on_queue: source is null");
}

TEST_F(Errors, NullWithZeroCountIsFine) {
    ishmem_int_put(sym, nullptr, 0, 0);
    ishmem_getmem(nullptr, sym, 0, 0);
    SUCCEED();
}

TEST_F(Errors, OtherDeclaredChecks) {
    int v[8] = {};
    uint64_t* sig = reinterpret_cast<uint64_t*>(sym + 8);
    EXPECT_ISHMEM_ERROR(ishmem_int_put_signal(sym, v, 1, sig, 1, 7, 0), "ishmem_int_put_signal: .*sig_op");
    EXPECT_ISHMEM_ERROR(ishmem_int_iput(sym, v, 0, 1, 2, 0), "ishmem_int_iput: dst is 0; it must be positive");
    EXPECT_ISHMEM_ERROR(ishmemx_int_ibget(v, sym, 1, -2, 1, 2, 0), "ishmemx_int_ibget: sst is -2");
    EXPECT_ISHMEM_ERROR(ishmem_align(48, 64), "ishmem_align: alignment 48 is not a power of two");
}

// Atomics and waits on a misaligned element work on the CPU but fault on a GPU: both sides refuse them.
TEST_F(Errors, MisalignedAtomicTarget) {
    int* mis_int = reinterpret_cast<int*>(reinterpret_cast<char*>(sym) + 1);
    long* mis_long = reinterpret_cast<long*>(sym + 1);  // 4-byte aligned only
    EXPECT_ISHMEM_ERROR(ishmem_int_atomic_fetch_add(mis_int, 1, 0),
                        "ishmem_int_atomic_fetch_add: dest .* is not aligned to 4 bytes");
    EXPECT_ISHMEM_ERROR(ishmem_long_atomic_fetch_add(mis_long, 1, 0),
                        "ishmem_long_atomic_fetch_add: dest .* is not aligned to 8 bytes");
    EXPECT_ISHMEM_ERROR(ishmem_int_atomic_set(mis_int, 1, 0),
                        "ishmem_int_atomic_set: dest .* is not aligned to 4 bytes");
    EXPECT_ISHMEM_ERROR(ishmem_long_atomic_set(mis_long, 1, 0),
                        "ishmem_long_atomic_set: dest .* is not aligned to 8 bytes");
    EXPECT_ISHMEM_ERROR(ishmem_atomic_fetch_add(mis_int, 1, 0), "ishmem_atomic_fetch_add: dest .* is not aligned");
}

TEST_F(Errors, MisalignedSignal) {
    int v = 1;
    uint64_t* mis_sig = reinterpret_cast<uint64_t*>(sym + 9);  // 4-byte aligned only
    EXPECT_ISHMEM_ERROR(ishmem_int_put_signal(sym, &v, 1, mis_sig, 1, ISHMEM_SIGNAL_SET, 0),
                        "ishmem_int_put_signal: sig_addr .* is not aligned to 8 bytes");
    EXPECT_ISHMEM_ERROR(ishmem_signal_wait_until(mis_sig, ISHMEM_CMP_EQ, 0),
                        "ishmem_signal_wait_until: sig_addr .* is not aligned to 8 bytes");
}

TEST_F(Errors, MisalignedWaitVariables) {
    int* mis_int = reinterpret_cast<int*>(reinterpret_cast<char*>(sym) + 2);
    EXPECT_ISHMEM_ERROR(ishmem_int_wait_until(mis_int, ISHMEM_CMP_EQ, 0),
                        "ishmem_int_wait_until: ivar .* is not aligned to 4 bytes");
    EXPECT_ISHMEM_ERROR(ishmem_int_test_any(mis_int, 4, nullptr, ISHMEM_CMP_EQ, 0),
                        "ishmem_int_test_any: ivars .* is not aligned to 4 bytes");
}

TEST_F(Errors, EmptySetMayBeNull) {
    EXPECT_EQ(ishmem_int_test_any(nullptr, 0, nullptr, ISHMEM_CMP_EQ, 0), SIZE_MAX);
    ishmem_int_wait_until_all(nullptr, 0, nullptr, ISHMEM_CMP_EQ, 0);
}

}  // namespace

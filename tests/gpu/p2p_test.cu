// Device-side point-to-point synchronization: _vector forms with status masks (each element against
// its own value, every operator), empty and fully masked sets, blocking waits satisfied by the left
// neighbour's puts while masked elements never are, _work_group forms returning one value in every
// thread, test-based polling with a device-side deadline, and many threads waiting on one word.
#include "gpu_testing.h"

#include <set>

namespace {

using namespace ishmem_gpu_testing;

class GpuP2p : public GpuTest {};

// ---------------------------------------------------------------------------------------------
// Values fixed before the kernel: per operator (one block each), which elements satisfy.

constexpr size_t vn = 6;
constexpr int held[vn] = {5, 5, 5, -3, 7, 0};
constexpr int values[vn] = {5, 4, 6, -3, 8, -1};
constexpr int cmps[6] = {ISHMEM_CMP_EQ, ISHMEM_CMP_NE, ISHMEM_CMP_GT, ISHMEM_CMP_GE, ISHMEM_CMP_LT, ISHMEM_CMP_LE};
// satisfied[c][i]: held[i] <cmp c> values[i]
const std::set<size_t> satisfied_sets[6] = {{0, 3}, {1, 2, 4, 5}, {1, 5}, {0, 1, 3, 5}, {2, 4}, {0, 2, 3, 4}};

struct probe_out {
    size_t some_count, some_idx[vn];        // test_some_vector, no mask
    size_t wsome_count, wsome_idx[vn];      // wait_until_some_vector, no mask
    size_t any, wany;                       // test_any_vector / wait_until_any_vector, no mask
    size_t any_hidden, some_hidden;         // mask hides every satisfied element: SIZE_MAX, 0
    int all_unmasked, all_masked;           // test_all_vector: 0; masked to the satisfied ones: 1
    size_t wg_some_count, wg_some_idx[vn];  // _work_group forms (block)
    size_t wg_any;                          // wait_until_any_vector_work_group, unsatisfied masked
    int wg_all_masked;                      // test_all_vector_work_group, unsatisfied masked
    unsigned wg_disagree;                   // threads whose _work_group result differed from thread 0's
};

// status_keep[c * vn + i]: 1 where element i does NOT satisfy cmp c (mask out the unsatisfied);
// status_hide: the inverse (mask out the satisfied).
__global__ void vector_probe(int* ivars, const int* vals, const int* cmp_of, const int* status_keep,
                             const int* status_hide, size_t* wg_idx, probe_out* out) {
    cg::thread_block block = cg::this_thread_block();
    const int c = blockIdx.x, cmp = cmp_of[c];
    const int* keep = status_keep + c * vn;
    const int* hide = status_hide + c * vn;
    probe_out& o = out[c];
    if (block.thread_rank() == 0) {
        o.some_count = ishmem_int_test_some_vector(ivars, vn, o.some_idx, nullptr, cmp, vals);
        o.wsome_count = ishmem_int_wait_until_some_vector(ivars, vn, o.wsome_idx, nullptr, cmp, vals);
        o.any = ishmem_int_test_any_vector(ivars, vn, nullptr, cmp, vals);
        o.wany = ishmem_int_wait_until_any_vector(ivars, vn, nullptr, cmp, vals);
        o.any_hidden = ishmem_int_test_any_vector(ivars, vn, hide, cmp, vals);
        size_t scratch[vn];
        o.some_hidden = ishmem_int_test_some_vector(ivars, vn, scratch, hide, cmp, vals);
        o.all_unmasked = ishmem_int_test_all_vector(ivars, vn, nullptr, cmp, vals);
        o.all_masked = ishmem_int_test_all_vector(ivars, vn, keep, cmp, vals);
        ishmem_int_wait_until_all_vector(ivars, vn, keep, cmp, vals);  // returns at once
    }
    block.sync();
    __shared__ size_t first_some, first_any;
    __shared__ int first_all;
    __shared__ unsigned disagree;
    if (block.thread_rank() == 0) disagree = 0;
    size_t* idx = wg_idx + c * vn;
    const size_t some = ishmemx_int_wait_until_some_vector_work_group(ivars, vn, idx, nullptr, cmp, vals, block);
    const size_t any = ishmemx_int_wait_until_any_vector_work_group(ivars, vn, keep, cmp, vals, block);
    const int all = ishmemx_int_test_all_vector_work_group(ivars, vn, keep, cmp, vals, block);
    ishmemx_int_wait_until_all_vector_work_group(ivars, vn, keep, cmp, vals, block);
    if (block.thread_rank() == 0) {
        first_some = some;
        first_any = any;
        first_all = all;
    }
    block.sync();
    if (some != first_some || any != first_any || all != first_all) atomicAdd(&disagree, 1u);
    block.sync();
    if (block.thread_rank() == 0) {
        o.wg_some_count = some;
        for (size_t i = 0; i < vn; ++i) o.wg_some_idx[i] = idx[i];
        o.wg_any = any;
        o.wg_all_masked = all;
        o.wg_disagree = disagree;
    }
}

TEST_F(GpuP2p, VectorFormsWithStatusMasks) {
    gpu_sym<int> ivars(vn);
    ASSERT_TRUE(ivars);
    ivars.write(std::vector<int>(held, held + vn));
    std::vector<int> keep(6 * vn), hide(6 * vn);
    for (int c = 0; c < 6; ++c)
        for (size_t i = 0; i < vn; ++i) {
            keep[c * vn + i] = satisfied_sets[c].count(i) ? 0 : 1;
            hide[c * vn + i] = satisfied_sets[c].count(i) ? -7 : 0;  // any nonzero excludes
        }
    dev_array<int> vals(std::vector<int>(values, values + vn)), cmp_of(std::vector<int>(cmps, cmps + 6));
    dev_array<int> keep_d(keep), hide_d(hide);
    dev_array<size_t> wg_idx(6 * vn);
    dev_array<probe_out> out(6);
    stream s;
    vector_probe<<<6, 96, 0, s>>>(ivars.get(), vals.get(), cmp_of.get(), keep_d.get(), hide_d.get(), wg_idx.get(),
                                  out.get());
    GPU_LAUNCHED("vector_probe");
    sync(s, "vector_probe");
    const std::vector<probe_out> o = out.read();
    for (int c = 0; c < 6; ++c) {
        SCOPED_TRACE("cmp " + std::to_string(cmps[c]));
        const std::set<size_t>& want = satisfied_sets[c];
        const probe_out& p = o[c];
        if (p.some_count > vn || p.wsome_count > vn || p.wg_some_count > vn) {
            ADD_FAILURE() << "a _some count exceeds nelems: " << p.some_count << ", " << p.wsome_count << ", "
                          << p.wg_some_count;
            continue;
        }
        EXPECT_EQ(std::set<size_t>(p.some_idx, p.some_idx + p.some_count), want) << "test_some_vector";
        EXPECT_EQ(p.some_count, want.size()) << "test_some_vector repeated an index";
        EXPECT_EQ(std::set<size_t>(p.wsome_idx, p.wsome_idx + p.wsome_count), want) << "wait_until_some_vector";
        EXPECT_TRUE(want.count(p.any)) << "test_any_vector returned " << p.any;
        EXPECT_TRUE(want.count(p.wany)) << "wait_until_any_vector returned " << p.wany;
        EXPECT_EQ(p.any_hidden, SIZE_MAX) << "test_any_vector with every satisfied element masked";
        EXPECT_EQ(p.some_hidden, 0u) << "test_some_vector with every satisfied element masked";
        EXPECT_EQ(p.all_unmasked, 0) << "test_all_vector, no mask";
        EXPECT_EQ(p.all_masked, 1) << "test_all_vector, unsatisfied masked";
        EXPECT_EQ(std::set<size_t>(p.wg_some_idx, p.wg_some_idx + p.wg_some_count), want)
            << "wait_until_some_vector_work_group";
        EXPECT_TRUE(want.count(p.wg_any)) << "wait_until_any_vector_work_group returned " << p.wg_any;
        EXPECT_EQ(p.wg_all_masked, 1) << "test_all_vector_work_group, unsatisfied masked";
        EXPECT_EQ(p.wg_disagree, 0u) << "threads of the block got different _work_group results";
    }
}

// ---------------------------------------------------------------------------------------------
// Empty sets (nelems 0, ivars null) and fully masked sets return at once with the empty-set
// results: SIZE_MAX for _any, 0 for _some, 1 for test_all; in every thread of a _work_group call.

__global__ void empty_sets(int* ivars, const int* all_masked, const int* vals, report_data* rep) {
    cg::thread_block block = cg::this_thread_block();
    size_t idx[4] = {99, 99, 99, 99};
    __shared__ size_t shared_idx[4];  // a _work_group call takes the same arguments in every thread
    struct set_arg {
        int* iv;
        size_t n;
        const int* status;
    };
    const set_arg sets[3] = {{nullptr, 0, nullptr}, {ivars, 0, nullptr}, {ivars, 4, all_masked}};
    for (int k = 0; k < 3; ++k) {
        const set_arg& a = sets[k];
        if (block.thread_rank() == 0) {
            ishmem_int_wait_until_all(a.iv, a.n, a.status, ISHMEM_CMP_EQ, 1);
            ishmem_int_wait_until_all_vector(a.iv, a.n, a.status, ISHMEM_CMP_EQ, vals);
            DEV_EXPECT_EQ(rep, ishmem_int_wait_until_any(a.iv, a.n, a.status, ISHMEM_CMP_EQ, 1), SIZE_MAX, 10 * k + 0);
            DEV_EXPECT_EQ(rep, ishmem_int_wait_until_any_vector(a.iv, a.n, a.status, ISHMEM_CMP_EQ, vals), SIZE_MAX,
                          10 * k + 1);
            DEV_EXPECT_EQ(rep, ishmem_int_wait_until_some(a.iv, a.n, idx, a.status, ISHMEM_CMP_EQ, 1), 0, 10 * k + 2);
            DEV_EXPECT_EQ(rep, ishmem_int_wait_until_some_vector(a.iv, a.n, idx, a.status, ISHMEM_CMP_EQ, vals), 0,
                          10 * k + 3);
            DEV_EXPECT_EQ(rep, ishmem_int_test_all(a.iv, a.n, a.status, ISHMEM_CMP_EQ, 1), 1, 10 * k + 4);
            DEV_EXPECT_EQ(rep, ishmem_int_test_any(a.iv, a.n, a.status, ISHMEM_CMP_EQ, 1), SIZE_MAX, 10 * k + 5);
            DEV_EXPECT_EQ(rep, ishmem_int_test_some(a.iv, a.n, idx, a.status, ISHMEM_CMP_EQ, 1), 0, 10 * k + 6);
            DEV_EXPECT_EQ(rep, idx[0], 99, 10 * k + 7);
        }
        const size_t any = ishmemx_int_wait_until_any_work_group(a.iv, a.n, a.status, ISHMEM_CMP_EQ, 1, block);
        DEV_EXPECT_EQ(rep, any, SIZE_MAX, 100 + 10 * k);
        const size_t some =
            ishmemx_int_test_some_vector_work_group(a.iv, a.n, shared_idx, a.status, ISHMEM_CMP_EQ, vals, block);
        DEV_EXPECT_EQ(rep, some, 0, 101 + 10 * k);
        ishmemx_int_wait_until_all_work_group(a.iv, a.n, a.status, ISHMEM_CMP_EQ, 1, block);
    }
}

TEST_F(GpuP2p, EmptyAndFullyMaskedSetsReturnAtOnce) {
    gpu_sym<int> ivars(4);  // all 0: none equals 1
    ASSERT_TRUE(ivars);
    dev_array<int> all_masked(std::vector<int>{1, 2, -1, 7}), vals(std::vector<int>{1, 1, 1, 1});
    dev_report rep;
    stream s;
    empty_sets<<<1, 64, 0, s>>>(ivars.get(), all_masked.get(), vals.get(), rep);
    GPU_LAUNCHED("empty_sets");
    sync(s, "empty_sets");
    rep.expect_clean("empty-set results (where = 10 * set + form)");
}

// ---------------------------------------------------------------------------------------------
// Blocking waits satisfied by the left neighbour. Block 0 (the setter) puts into the right
// neighbour, one element at a time with pauses; block 1 (the waiter) waits on its own elements.
// Elements 1 and 5 are masked and never set: a wait that looked at them would never return.
//   ivars[8]: values[i] = 10 + i, set in reverse order
//   late[4]:  set after the waiter has entered its _work_group waits (elements 1, 3 masked)
//   word:     set last, for ishmemx_int_wait (NE 0) from every thread of the block

__global__ void setter_and_waiter(int* ivars, int* late, int* word, const int* status8, const int* vals8,
                                  const int* status4, const int* vals4, size_t* idx_out, report_data* rep) {
    cg::thread_block block = cg::this_thread_block();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n;
    if (blockIdx.x == 0) {
        if (block.thread_rank() != 0) return;
        sleep_ns(2000000);
        for (int i = 7; i >= 0; --i) {
            if (i == 1 || i == 5) continue;
            ishmem_int_p(ivars + i, 10 + i, right);
            sleep_ns(200000);
        }
        sleep_ns(2000000);
        ishmem_int_p(late + 2, 102, right);
        sleep_ns(500000);
        ishmem_int_p(late + 0, 100, right);
        sleep_ns(500000);
        ishmem_fence();
        ishmem_int_p(word, 5, right);
        return;
    }
    // the waiter
    if (block.thread_rank() == 0) {
        ishmem_int_wait_until_all_vector(ivars, 8, status8, ISHMEM_CMP_EQ, vals8);
        for (int i = 0; i < 8; ++i) DEV_EXPECT_EQ(rep, ivars[i], (i == 1 || i == 5) ? 0 : 10 + i, i);
        size_t some8[8];
        for (int i = 0; i < 8; ++i) some8[i] = 0;
        int status_only7[8] = {1, 1, 1, 1, 1, 1, 1, 0};
        DEV_EXPECT_EQ(rep, ishmem_int_wait_until_any_vector(ivars, 8, status_only7, ISHMEM_CMP_EQ, vals8), 7, 20);
        const size_t count = ishmem_int_wait_until_some_vector(ivars, 8, some8, status8, ISHMEM_CMP_EQ, vals8);
        DEV_EXPECT_EQ(rep, count, 6, 21);
        unsigned seen = 0;
        for (size_t k = 0; k < count && k < 8; ++k) seen |= 1u << some8[k];
        DEV_EXPECT_EQ(rep, seen, 0xDD, 22);  // {0, 2, 3, 4, 6, 7}
        ishmem_int_wait_until_all(ivars, 8, status8, ISHMEM_CMP_GE, 10);
    }
    // _work_group waits on `late` (entered before it is set) and ishmemx_int_wait on `word`.
    const size_t some =
        ishmemx_int_wait_until_some_vector_work_group(late, 4, idx_out, status4, ISHMEM_CMP_GE, vals4, block);
    DEV_EXPECT_TRUE(rep, some == 1 || some == 2, 30);
    ishmemx_int_wait_until_all_vector_work_group(late, 4, status4, ISHMEM_CMP_GE, vals4, block);
    if (block.thread_rank() == 0) {
        DEV_EXPECT_EQ(rep, late[0], 100, 31);
        DEV_EXPECT_EQ(rep, late[1], 0, 32);
        DEV_EXPECT_EQ(rep, late[2], 102, 33);
        DEV_EXPECT_EQ(rep, late[3], 0, 34);
        for (size_t k = 0; k < some && k < 2; ++k) DEV_EXPECT_TRUE(rep, idx_out[k] == 0 || idx_out[k] == 2, 35);
    }
    ishmemx_int_wait(word, 0);  // every thread, base form
    ishmemx_int_wait_work_group(word, 0, block);
    DEV_EXPECT_EQ(rep, load_volatile(word), 5, 40);
}

TEST_F(GpuP2p, BlockingVectorWaitsSatisfiedByTheLeftNeighbour) {
    gpu_sym<int> ivars(8), late(4), word(1);
    ASSERT_TRUE(ivars && late && word);
    dev_array<int> status8(std::vector<int>{0, 1, 0, 0, 0, 1, 0, 0});
    dev_array<int> vals8(std::vector<int>{10, 11, 12, 13, 14, 15, 16, 17});
    dev_array<int> status4(std::vector<int>{0, 1, 0, 1}), vals4(std::vector<int>{100, 101, 102, 103});
    dev_array<size_t> idx(4);
    dev_report rep;
    stream s;
    ishmem_barrier_all();
    setter_and_waiter<<<2, 64, 0, s>>>(ivars.get(), late.get(), word.get(), status8.get(), vals8.get(), status4.get(),
                                       vals4.get(), idx.get(), rep);
    GPU_LAUNCHED("setter_and_waiter");
    sync(s, "setter_and_waiter");
    rep.expect_clean("waits satisfied by PE " + std::to_string(left));
}

// ---------------------------------------------------------------------------------------------
// Polling with ishmem_int_test under a device-side deadline (how a kernel bounds its own wait),
// and 256 threads all blocked in ishmem_int_wait_until on one word until the left neighbour sets it.

__global__ void poll_and_many_waiters(int* flag, int* many, unsigned long long timeout_ns, report_data* rep,
                                      unsigned long long* polls) {
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n;
    if (blockIdx.x == 0) {  // the setter
        if (threadIdx.x != 0) return;
        sleep_ns(20000000);
        ishmem_int_p(flag, 1, right);
        sleep_ns(1000000);
        ishmem_int_atomic_set(many, 3, right);
        return;
    }
    if (threadIdx.x == 0) {
        const unsigned long long deadline = global_ns() + timeout_ns;
        unsigned long long k = 0;
        bool ok = false;
        while (!(ok = ishmem_int_test(flag, ISHMEM_CMP_EQ, 1) != 0)) {
            ++k;
            if (global_ns() > deadline) break;
        }
        DEV_EXPECT_TRUE(rep, ok, -1);  // -1: the deadline passed
        *polls = k;
    }
    ishmem_int_wait_until(many, ISHMEM_CMP_GE, 3);
    DEV_EXPECT_EQ(rep, load_volatile(many), 3, threadIdx.x);
}

TEST_F(GpuP2p, TestPollingWithDeadlineAndManyWaiters) {
    gpu_sym<int> flag(1), many(1);
    ASSERT_TRUE(flag && many);
    dev_report rep;
    dev_array<unsigned long long> polls(1);
    stream s;
    EXPECT_EQ(ishmem_int_test(flag.get(), ISHMEM_CMP_EQ, 1), 0) << "host test before anyone set the flag";
    ishmem_barrier_all();
    poll_and_many_waiters<<<2, 256, 0, s>>>(flag.get(), many.get(), 10ull * 1000 * 1000 * 1000, rep, polls.get());
    GPU_LAUNCHED("poll_and_many_waiters");
    sync(s, "poll_and_many_waiters");
    rep.expect_clean("polling (where -1: deadline passed) and waiters");
    // Not a failure (PEs start their kernels at slightly different times), but say when it happens.
    if (polls.read()[0] == 0) std::printf("[PE %d] note: the flag was set before the first test\n", me);
    ishmem_barrier_all();
}

}  // namespace

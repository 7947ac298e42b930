// Setup queries and ishmem_ptr on the device: my_pe/n_pes/info match the host's; a pointer from
// ishmem_ptr (device- or host-side) lets a kernel store straight into a peer's heap; ptr of a
// non-symmetric address is null; ishmemx_print runs from a kernel.
#include "gpu_testing.h"

#include <cstring>

namespace {

using namespace ishmem_gpu_testing;

class GpuMisc : public GpuTest {};

struct queries {
    int my_pe, n_pes, major, minor;
    char name[ISHMEM_MAX_NAME_LEN];
    int ptr_of_local_is_null;
    int ptr_of_self_is_null;
};

__global__ void query(queries* q, const int* symmetric, const int* local) {
    q->my_pe = ishmem_my_pe();
    q->n_pes = ishmem_n_pes();
    ishmem_info_get_version(&q->major, &q->minor);
    ishmem_info_get_name(q->name);
    q->ptr_of_local_is_null = ishmem_ptr(local, ishmem_my_pe()) == nullptr;
    q->ptr_of_self_is_null = ishmem_ptr(symmetric, ishmem_my_pe()) == nullptr;
}

TEST_F(GpuMisc, QueriesMatchTheHost) {
    gpu_sym<int> sym(1);
    ASSERT_TRUE(sym);
    dev_array<int> local(1);
    managed<queries> q;
    stream s;
    query<<<1, 1, 0, s>>>(q.get(), sym.get(), local.get());
    GPU_LAUNCHED("query");
    sync(s, "query");
    EXPECT_EQ(q[0].my_pe, ishmem_my_pe());
    EXPECT_EQ(q[0].n_pes, ishmem_n_pes());
    int major = -1, minor = -1;
    ishmem_info_get_version(&major, &minor);
    EXPECT_EQ(q[0].major, major);
    EXPECT_EQ(q[0].minor, minor);
    char name[ISHMEM_MAX_NAME_LEN] = {};
    ishmem_info_get_name(name);
    EXPECT_STREQ(q[0].name, name);
    EXPECT_EQ(q[0].ptr_of_local_is_null, 1) << "ishmem_ptr of a non-symmetric address";
    EXPECT_EQ(q[0].ptr_of_self_is_null, 0) << "ishmem_ptr of my own symmetric object";
}

// Each thread stores through ishmem_ptr(buf, right) (taken on the device) into buf2 through the
// pointer the host's ishmem_ptr gave; both land in the right neighbour's copies.
constexpr int ptr_n = 4096;

__global__ void store_through_ptr(int* buf, int* host_ptr_to_right, report_data* rep) {
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n;
    int* p = static_cast<int*>(ishmem_ptr(buf, right));
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (p == nullptr) {
        if (i == 0) report_mismatch(rep, right, 0, 1, __LINE__);  // "got a null pointer for PE right"
        return;
    }
    if (i < ptr_n) {
        p[i] = pattern(me, 5, i);
        if (host_ptr_to_right) host_ptr_to_right[i] = pattern(me, 6, i);
    }
    __threadfence_system();
}

TEST_F(GpuMisc, PtrGivesAPointerKernelsStoreThrough) {
    gpu_sym<int> buf(ptr_n), buf2(ptr_n);
    ASSERT_TRUE(buf && buf2);
    int* host_ptr = static_cast<int*>(ishmem_ptr(buf2.get(), right));
    EXPECT_NE(host_ptr, nullptr) << "host ishmem_ptr for PE " << right << " (same node: mapped)";
    dev_report rep;
    stream s;
    ishmem_barrier_all();
    store_through_ptr<<<ptr_n / 256, 256, 0, s>>>(buf.get(), host_ptr, rep);
    GPU_LAUNCHED("store_through_ptr");
    sync(s, "store_through_ptr");
    rep.expect_clean("device ishmem_ptr was null (where = PE)");
    ishmem_barrier_all();
    expect_elements(buf.read(), [&](size_t i) { return pattern(left, 5, static_cast<long long>(i)); }, "stores through device ishmem_ptr");
    if (host_ptr)
        expect_elements(buf2.read(), [&](size_t i) { return pattern(left, 6, static_cast<long long>(i)); }, "stores through host ishmem_ptr");
    ishmem_barrier_all();
}

#if ISHMEM_GPU_TEST_HAVE_PRINT
__global__ void print_from_device() {
    if (threadIdx.x == 0) ishmemx_print("ishmem_gpu_tests: ishmemx_print from a kernel\n");
}
#endif

TEST_F(GpuMisc, PrintFromDevice) {
#if ISHMEM_GPU_TEST_HAVE_PRINT
    stream s;
    print_from_device<<<2, 32, 0, s>>>();
    GPU_LAUNCHED("print_from_device");
    sync(s, "print_from_device");
#else
    GTEST_SKIP() << "ishmemx_print is not declared in ishmemx.h (not in spec/ yet)";
#endif
}

}  // namespace

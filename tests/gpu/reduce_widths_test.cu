// Reductions and scans on the CUDA backend over element widths of 1 to 8 bytes, at lengths that end
// inside a 16-byte vector and on arrays that are not 16-byte aligned. The library combines whole
// 16-byte vectors when both arrays allow it and single elements otherwise, and the last member
// takes the elements past the last whole vector; these cases reach every one of those paths, from
// the host (one block for short arrays, a grid of many blocks for long ones), on a stream and from
// a block in a kernel. The elements around each result must stay as they were.
#include <algorithm>
#include <string>
#include <vector>

#include "gpu_testing.h"

namespace {

using namespace ishmem_gpu_testing;
namespace cg = cooperative_groups;

template <class T> class GpuReduceWidths : public GpuTest {};
using widths = ::testing::Types<int8_t, int16_t, int32_t, float, double, uint64_t>;
TYPED_TEST_SUITE(GpuReduceWidths, widths);

// 1..11, so that sums over 4 PEs fit in int8_t and floating-point sums are exact.
template <class T> T value(int pe, size_t i) { return static_cast<T>((pe * 7 + i * 13) % 11 + 1); }
template <class T> constexpr T sentinel() { return static_cast<T>(-3); }

template <class T> __global__ void block_sum(T* dest, const T* source, size_t n, int* ret) {
    auto b = cg::this_thread_block();
    const int r = ishmemx_sum_reduce_work_group(dest, source, n, b);
    if (b.thread_rank() == 0) *ret = r;
}

enum form : int { host_sum, host_max_in_place, host_inscan, host_exscan, queue_sum, block_sum_form };
const char* form_name(form f) {
    switch (f) {
        case host_sum:
            return "ishmem_sum_reduce";
        case host_max_in_place:
            return "ishmem_max_reduce in place";
        case host_inscan:
            return "ishmem_sum_inscan";
        case host_exscan:
            return "ishmem_sum_exscan";
        case queue_sum:
            return "ishmemx_sum_reduce_on_queue";
        default:
            return "ishmemx_sum_reduce_work_group (block)";
    }
}

// What PE me's dest[i] must hold after form f.
template <class T> T expected(form f, int me, int n, size_t i) {
    T acc{};
    for (int pe = 0; pe < n; ++pe) {
        const T v = value<T>(pe, i);
        if (f == host_exscan && pe == me) return acc;
        if (f == host_max_in_place)
            acc = pe == 0 || v > acc ? v : acc;
        else
            acc = static_cast<T>(acc + v);
        if (f == host_inscan && pe == me) return acc;
    }
    return acc;
}

TYPED_TEST(GpuReduceWidths, EveryLengthAndAlignment) {
    using T = TypeParam;
    const int me = this->me, n = this->n;
    constexpr size_t longest = 300001;  // a grid of many blocks from the host
    gpu_sym<T> src(longest + 2), dst(longest + 2 + 16);
    ASSERT_TRUE(src && dst);
    managed<int> ret(1);
    stream st;
    ishmem::queue q(st.get());

    for (size_t len : {size_t{1}, size_t{5}, size_t{17}, size_t{4099}, longest})
        for (size_t off : {size_t{0}, size_t{1}})
            for (form f : {host_sum, host_max_in_place, host_inscan, host_exscan, queue_sum, block_sum_form}) {
                const std::string what = std::string(form_name(f)) + ", " + std::to_string(len) + " elements of " +
                                         std::to_string(sizeof(T)) + " bytes at offset " + std::to_string(off);
                std::vector<T> s(len), d(dst.size(), sentinel<T>());
                for (size_t i = 0; i < len; ++i) s[i] = value<T>(me, i);
                src.write(s, off);
                if (f == host_max_in_place) std::copy(s.begin(), s.end(), d.begin() + static_cast<ptrdiff_t>(off));
                dst.write(d);
                ishmem_barrier_all();

                T* out = dst + off;
                const T* in = f == host_max_in_place ? out : src + off;
                ret[0] = -1;
                int r = 0;
                switch (f) {
                    case host_sum:
                        r = ishmem_sum_reduce(out, in, len);
                        break;
                    case host_max_in_place:
                        r = ishmem_max_reduce(out, in, len);
                        break;
                    case host_inscan:
                        r = ishmem_sum_inscan(out, in, len);
                        break;
                    case host_exscan:
                        r = ishmem_sum_exscan(out, in, len);
                        break;
                    case queue_sum:
                        ishmemx_sum_reduce_on_queue(out, in, len, ret.get(), q).wait();
                        r = ret[0];
                        break;
                    default:
                        block_sum<T><<<1, 256, 0, st>>>(out, in, len, ret.get());
                        GPU_LAUNCHED("block_sum");
                        sync(st, what.c_str());
                        r = ret[0];
                        break;
                }
                EXPECT_EQ(r, 0) << what;
                const std::vector<T> got = dst.read(0, off + len + 16);
                expect_elements(
                    got,
                    [&](size_t i) {
                        return i < off || i >= off + len ? sentinel<T>() : expected<T>(f, me, n, i - off);
                    },
                    what);
                ishmem_barrier_all();
            }
}

}  // namespace

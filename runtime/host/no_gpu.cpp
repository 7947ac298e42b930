// A library built without CUDA: the GPU backend is never usable, and the calls that only that
// backend makes stop the job if they are reached anyway.
#include "../src/gpu_backend.h"
#include "../src/heap.h"
#include "ishmem/cuda/device_state.h"
#include "ishmem/impl/runtime.h"

namespace ishmemi {

namespace {
[[noreturn]] void no_cuda(const char* what) {
    fatal("ishmem", "%s needs the CUDA backend, and this library was built without CUDA (ISHMEM_ENABLE_CUDA=OFF)",
          what);
}
}  // namespace

bool gpu_backend_usable(const char** why) {
    *why = "this library was built without CUDA (ISHMEM_ENABLE_CUDA=OFF)";
    return false;
}
void gpu_backend_bind(bootstrap&) { no_cuda("gpu_backend_bind"); }
void gpu_backend_start() { no_cuda("gpu_backend_start"); }
void gpu_backend_stop() {}
void* gpu_proxy_ring() { return nullptr; }
void gpu_team_set(int, const team_t*) { no_cuda("gpu_team_set"); }
void gpu_heap_create(bootstrap&, size_t, size_t) { no_cuda("a heap in GPU memory"); }
void gpu_heap_destroy() {}

namespace gpu {
void copy(void*, const void*, size_t) { no_cuda("gpu::copy"); }
size_t heap_span() { return 0; }
void copy_2d(void*, size_t, const void*, size_t, size_t, size_t) { no_cuda("gpu::copy_2d"); }
void fill_zero(void*, size_t) { no_cuda("gpu::fill_zero"); }
bool copy_async(CUstream_st*, void*, const void*, size_t, const void*) { no_cuda("gpu::copy_async"); }
void signal_async(CUstream_st*, uint64_t*, uint64_t, bool) { no_cuda("gpu::signal_async"); }
uint64_t rmw(rmw_op, void*, unsigned, uint64_t, uint64_t) { no_cuda("gpu::rmw"); }
void collective(coll_kind, int, void*, const void*, size_t, int, CUstream_st*) { no_cuda("gpu::collective"); }
void reduction(int, int, elem_kind, int, void*, const void*, size_t, CUstream_st*) { no_cuda("gpu::reduction"); }
void barrier(int, CUstream_st*) { no_cuda("gpu::barrier"); }
}  // namespace gpu

// A module compiled by nvcc against this library never gets a state: its device calls report that
// ishmem is not initialized.
namespace cuda {
void register_device_state(device_state_setter) {}
}  // namespace cuda

}  // namespace ishmemi

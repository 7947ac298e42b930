// Driver entry points through the CUDA runtime (cudaGetDriverEntryPointByVersion): no link-time
// dependency on libcuda.so.1.
#include <cstdio>

#include "cuda_call.h"

namespace ishmemi::cuda {

namespace {

template <class F> void load(F* fn, const char* name) {
    cudaDriverEntryPointQueryResult found{};
    void* p = nullptr;
    cudaError_t err = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || p == nullptr)
        fatal("ishmem_init", "the CUDA driver has no %s (%s); the CUDA backend needs driver API 12.0 or newer", name,
              cudaGetErrorString(err));
    *fn = reinterpret_cast<F>(p);
}

driver_api load_all() {
    driver_api d{};
    load(&d.mem_create, "cuMemCreate");
    load(&d.mem_release, "cuMemRelease");
    load(&d.mem_granularity, "cuMemGetAllocationGranularity");
    load(&d.mem_export, "cuMemExportToShareableHandle");
    load(&d.mem_import, "cuMemImportFromShareableHandle");
    load(&d.address_reserve, "cuMemAddressReserve");
    load(&d.address_free, "cuMemAddressFree");
    load(&d.mem_map, "cuMemMap");
    load(&d.mem_unmap, "cuMemUnmap");
    load(&d.mem_set_access, "cuMemSetAccess");
    load(&d.error_string, "cuGetErrorString");
    return d;
}

}  // namespace

const driver_api& driver() {
    static const driver_api d = load_all();
    return d;
}

void check_driver(CUresult r, const char* routine, const char* what) {
    if (__builtin_expect(r == CUDA_SUCCESS, 1)) return;
    const char* text = nullptr;
    if (driver().error_string(r, &text) != CUDA_SUCCESS || !text) text = "unknown error";
    fatal(routine, "%s failed: %s (CUresult %d)", what, text, static_cast<int>(r));
}

}  // namespace ishmemi::cuda

// Checked CUDA calls inside the library, and the driver functions it reaches without linking
// libcuda (the runtime hands out their addresses), so that the library loads on machines
// without an NVIDIA driver and simply never selects the CUDA backend there.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include "ishmem/impl/runtime.h"

namespace ishmemi::cuda {

// Stops the job with "<routine>: <what>: <CUDA's error text>" unless err is cudaSuccess.
inline void check(cudaError_t err, const char* routine, const char* what) {
    if (__builtin_expect(err != cudaSuccess, 0))
        fatal(routine, "%s failed: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
}

// The driver API entry points the heap needs (cuda_driver.cpp).
struct driver_api {
    decltype(&::cuMemCreate) mem_create;
    decltype(&::cuMemRelease) mem_release;
    decltype(&::cuMemGetAllocationGranularity) mem_granularity;
    decltype(&::cuMemExportToShareableHandle) mem_export;
    decltype(&::cuMemImportFromShareableHandle) mem_import;
    decltype(&::cuMemAddressReserve) address_reserve;
    decltype(&::cuMemAddressFree) address_free;
    decltype(&::cuMemMap) mem_map;
    decltype(&::cuMemUnmap) mem_unmap;
    decltype(&::cuMemSetAccess) mem_set_access;
    decltype(&::cuGetErrorString) error_string;
};
const driver_api& driver();

// Stops the job unless r is CUDA_SUCCESS.
void check_driver(CUresult r, const char* routine, const char* what);

// The device this PE runs on (set by gpu_backend_bind).
int device();
// Makes this PE's device current on the calling thread (the library's and the user's other threads
// start on device 0).
void ensure_device();

// The library's stream for host-initiated work on GPU memory: non-blocking, so that it never waits
// for a kernel that the user launched on the legacy default stream (which may be waiting for it).
cudaStream_t host_stream();

// Allocate what host_ops.cu, stream_gate.cu and collectives.cu use, at init (see gpu_backend_start).
void host_ops_init();
void stream_gates_init();
void collectives_init();

}  // namespace ishmemi::cuda

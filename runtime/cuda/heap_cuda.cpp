// The user heap in GPU memory (docs/design.rst, 'GPU backend'). Each PE creates its heap with the driver's virtual
// memory API as a shareable allocation, exports it as a POSIX file descriptor, and passes it to the
// node's other PEs through the bootstrap's fd exchange (ishmrun's SCM_RIGHTS channel, or pidfd under
// mpirun). Every PE reserves one address window with a slot per PE at a fixed stride and maps each
// PE's allocation into its slot, so a peer's copy of an object is `addr + (pe - me) * stride` for
// device code, and the host's copies reach it through the same addresses.
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "../src/heap.h"
#include "../src/nodes.h"
#include "cuda_call.h"
#include "ishmem/cuda/device_state.h"
#include "ishmem/impl/teams.h"

namespace ishmemi {

namespace {

const char* const routine = "ishmem_init";

CUdeviceptr window = 0;  // the reserved window: n_pes slots of `stride` bytes
size_t window_size = 0, mapped_size = 0;
std::vector<CUmemGenericAllocationHandle> handles;  // mine and the imported ones, per PE

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace

namespace cuda {
long long heap_stride = 0;  // read by backend.cpp for the device state
size_t sync_offset = 0;     // the GPU sync region (device barriers) starts this far after heap_base
}  // namespace cuda

void gpu_heap_create(bootstrap& boot, size_t user_size, size_t alignment) {
    const cuda::driver_api& d = cuda::driver();
    const int n = boot.n_pes(), me = boot.pe(), dev = cuda::device();

    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t granularity = 0;
    cuda::check_driver(d.mem_granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), routine,
                       "cuMemGetAllocationGranularity");
    // The user heap, then the GPU sync region: a gpu_sync_slot per team slot and the medium stages
    // (backend.cpp), in the same mapping so that a peer's is one add away too. The user heap's
    // checks end at user_size.
    const size_t user_part = round_up(user_size, granularity);
    mapped_size = user_part + round_up(team_slots_max * sizeof(cuda::gpu_sync_slot) +
                                           cuda::medium_slots * sizeof(cuda::gpu_medium_slot),
                                       granularity);
    const size_t align = std::max(alignment, granularity);
    const size_t stride = round_up(mapped_size, align);

    CUmemGenericAllocationHandle mine;
    CUresult r = d.mem_create(&mine, mapped_size, &prop, 0);
    if (r != CUDA_SUCCESS) {
        const char* text = nullptr;
        d.error_string(r, &text);
        fatal(routine, "cannot allocate the symmetric heap (%zu bytes) on GPU %d: %s; lower ISHMEM_SYMMETRIC_SIZE",
              mapped_size, dev, text ? text : "unknown error");
    }
    int fd = -1;
    cuda::check_driver(d.mem_export(&fd, mine, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), routine,
                       "exporting the GPU heap as a file descriptor (cuMemExportToShareableHandle)");
    std::vector<int> fds(n, -1);
    boot.exchange_fds(fd, fds.data(), node_table());

    window_size = stride * static_cast<size_t>(n);
    cuda::check_driver(d.address_reserve(&window, window_size, align, 0, 0), routine,
                       "reserving GPU address space for the heaps of all PEs (cuMemAddressReserve)");
    handles.assign(n, 0);
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = dev;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    char** bases = new char*[n];
    const int* node = node_table();
    for (int pe = 0; pe < n; ++pe) {
        // A PE of another node: its slot stays unmapped and its base null (impl/transport.h's
        // is_remote); it is reached through the transport.
        if (node[pe] != node[me]) {
            bases[pe] = nullptr;
            continue;
        }
        if (pe == me) {
            handles[pe] = mine;
        } else {
            cuda::check_driver(d.mem_import(&handles[pe], reinterpret_cast<void*>(static_cast<uintptr_t>(fds[pe])),
                                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                               routine, "importing a peer's GPU heap (cuMemImportFromShareableHandle)");
        }
        close(fds[pe]);
        const CUdeviceptr slot = window + stride * static_cast<size_t>(pe);
        cuda::check_driver(d.mem_map(slot, mapped_size, 0, handles[pe], 0), routine, "mapping a GPU heap (cuMemMap)");
        r = d.mem_set_access(slot, mapped_size, &access, 1);
        if (r != CUDA_SUCCESS) {
            const char* text = nullptr;
            d.error_string(r, &text);
            fatal(
                routine,
                "the GPU heap of PE %d cannot be reached from this PE's GPU %d (%s): the two GPUs have no "
                "peer access (NVLink or PCIe P2P); run one PE per GPU of a peer-connected set, or ISHMEM_BACKEND=host",
                pe, dev, text ? text : "unknown error");
        }
        bases[pe] = reinterpret_cast<char*>(slot);
    }
    state.peer_base = bases;
    state.heap_base = bases[me];
    cuda::heap_stride = static_cast<long long>(stride);
    cuda::sync_offset = user_part;
    // Every PE starts from a zeroed heap, as on the host backend (memfd pages are zero).
    cuda::check(cudaMemset(state.heap_base, 0, mapped_size), routine, "zeroing the GPU heap");
    cuda::check(cudaDeviceSynchronize(), routine, "zeroing the GPU heap");
}

size_t gpu::heap_span() { return mapped_size; }

void gpu_heap_destroy() {
    const cuda::driver_api& d = cuda::driver();
    cudaDeviceSynchronize();
    for (size_t pe = 0; pe < handles.size(); ++pe) {
        if (!state.peer_base[pe]) continue;  // another node's
        d.mem_unmap(reinterpret_cast<CUdeviceptr>(state.peer_base[pe]), mapped_size);
        d.mem_release(handles[pe]);
    }
    if (window) d.address_free(window, window_size);
    window = 0;
    handles.clear();
    delete[] state.peer_base;
}

}  // namespace ishmemi

// What the core asks of a GPU backend at init and finalize (runtime/cuda/ implements it; a library
// built without CUDA has runtime/host/no_gpu.cpp, which says why it cannot).
#pragma once

#include "ishmem/impl/bootstrap.h"

namespace ishmemi {

// Whether this process can run the CUDA backend: the library has CUDA and a GPU is visible. When
// not, *why says which is missing.
bool gpu_backend_usable(const char** why);
// Picks this PE's GPU (ISHMEM_DEVICE, else its rank on the node) and makes it current. Collective:
// warns when PEs of the node share a GPU. Before the heap exists.
void gpu_backend_bind(bootstrap& boot);
// After the heap exists: gives the device-visible state to every module that includes ishmem.h
// and starts the watcher that reports device-side errors.
void gpu_backend_start();
// The memory of the proxy ring through which device code reaches the PEs of other nodes (mapped
// pinned host memory of proxy::ring_bytes(config.proxy_slots) bytes, made by gpu_backend_start when
// the job spans nodes), for the proxy transport that serves it; null on one node.
void* gpu_proxy_ring();
// At finalize, before the heap goes: stops the watcher and waits for the GPU's queued work.
void gpu_backend_stop();
// The device's view of team slot `slot` on this PE: t (installed: its GPU barrier counters are
// zeroed too), or none (t null: destroyed). Returns once device code sees it.
struct team_t;
void gpu_team_set(int slot, const team_t* t);

}  // namespace ishmemi

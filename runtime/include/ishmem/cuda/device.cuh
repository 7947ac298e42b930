// The device half of the API on NVIDIA GPUs: what the generated device entry points call.
//
// Each PE's heap is mapped into every PE's address space at a fixed stride (runtime/cuda/
// heap_cuda.cpp), so a peer's copy of a symmetric object is one add away, and every operation is
// loads, stores and atomics over NVLink. Memory model (docs/design.rst, 'GPU backend'): waits poll with acquire
// loads at system scope; signals are written after a system-scope fence (release); fence and quiet
// are system-scope fences; AMOs are system-scope atomics, relaxed for read-modify-writes and set
// (order them with fence/quiet, as OpenSHMEM says), acquire for fetch.
//
// Group forms take cooperative_groups::thread_block or thread_block_tile<N> (N <= 32): every thread
// of the group calls with the same arguments; the group shares copies; one thread signals or polls
// and the others get its result.
#pragma once

#if !defined(__CUDACC__)
#error "ishmem/cuda/device.cuh is for nvcc; include ishmem.h instead"
#endif

// Device debug builds (-G) are known to give block-wide _work_group calls wrong values
// (docs/guide/cuda.rst); said once per device pass, at compile time.
#if defined(__CUDACC_DEBUG__) && defined(__CUDA_ARCH__)
#warning \
    "ishmem: device code built with -G is not supported: block-wide _work_group calls may read wrong values (see the CUDA guide); build device code optimized"
#endif

// One header per chapter, as on the host (impl/).
#include "ishmem/cuda/common.cuh"
#include "ishmem/cuda/rma.cuh"
#include "ishmem/cuda/ordering.cuh"
#include "ishmem/cuda/amo.cuh"
#include "ishmem/cuda/signal.cuh"
#include "ishmem/cuda/p2p.cuh"
#include "ishmem/cuda/teams.cuh"
#include "ishmem/cuda/sync.cuh"

#include "ishmem/cuda/collectives.cuh"  // data collectives: broadcast, collect, reductions, ...

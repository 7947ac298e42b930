// The symmetric heap: one memfd per PE (the internal region, and the user heap on the host backend),
// mapped by every PE of the node; on a GPU backend the user heap is GPU memory.
#pragma once

#include <cstddef>

#include "ishmem/impl/bootstrap.h"
#include "nodes.h"

namespace ishmemi {

// Creates my heap (internal region + user_size bytes), shares it through boot and maps every
// peer's; fills state.heap_base, heap_size and peer_base. Collective.
void heap_create(bootstrap& boot, size_t user_size);
// Alignment of every PE's user heap base for a heap of user_size bytes; ishmem_align cannot promise
// more than this.
size_t heap_alignment(size_t user_size);
// Unmaps every mapping made by heap_create.
void heap_destroy();

// The user heap in GPU memory (runtime/cuda/heap_cuda.cpp): fills state.heap_base and peer_base
// with my mappings of every PE's heap, each based at a multiple of alignment. Collective.
void gpu_heap_create(bootstrap& boot, size_t user_size, size_t alignment);
void gpu_heap_destroy();

}  // namespace ishmemi

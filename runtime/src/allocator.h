// The symmetric allocator: the same sequence of calls gives the same offsets on every PE.
#pragma once

#include <cstddef>

namespace ishmemi {

void allocator_reset(size_t heap_size);

// Offset of a block of size bytes aligned to alignment (a power of two), or SIZE_MAX when none is
// free; *largest_free receives the largest free block then. Not collective: callers add barriers.
size_t allocator_take(size_t size, size_t alignment, size_t* largest_free);
// Returns the block at offset; false when no block starts there.
bool allocator_give_back(size_t offset);
// The live block that contains offset: its start and the size that was asked for (ISHMEM_CHECK=full);
// false when offset is in none.
bool allocator_find(size_t offset, size_t* start, size_t* size);

}  // namespace ishmemi

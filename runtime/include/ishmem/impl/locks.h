// Distributed locks (runtime/src/locks.cpp): a ticket lock in PE 0's copy of the lock word, taken
// and released with the core's atomics, so that it works on every backend that has them.
#pragma once

#include "ishmem/impl/api.h"

namespace ishmemi::impl {

ISHMEM_API void set_lock(long* lock);
ISHMEM_API int test_lock(long* lock);
ISHMEM_API void clear_lock(long* lock);

}  // namespace ishmemi::impl

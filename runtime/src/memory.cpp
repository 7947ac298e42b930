// ishmem_malloc / align / calloc / free: collective wrappers around the symmetric allocator.
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "allocator.h"
#include "heap.h"
#include "config.h"
#include "ishmem/impl/setup.h"
#include "ishmem/impl/sync.h"
#include "ishmem/impl/teams.h"

namespace ishmemi::impl {

namespace {

// ISHMEM_CHECK=full: every PE must ask for the same block, or free the same one, or the heap stops
// being symmetric (later blocks land at different offsets on different PEs). The PEs compare the
// routine and its arguments as text, like a collective's (agree_on_call), before the allocator
// runs: a difference stops the job naming both PEs and both values. Blocks are compared by heap
// offset, which is the same on every PE for the same block. Nothing runs in the default mode.
void agree_on_block(const char* routine, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void agree_on_block(const char* routine, const char* fmt, ...) {
    if (__builtin_expect(!state.check_full, 1)) return;
    char args[sizeof agree_record::args];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    call_info ci{};
    ci.routine = routine;
    ci.team = ISHMEM_TEAM_WORLD;
    ci.root = -1;
    ci.cmp = -1;
    ci.nelems = UINT64_MAX;
    ci.args = args;
    call_scope scope(ci);
    agree_on_call(ISHMEM_TEAM_WORLD, ci);
}

// The block at ptr, as agree_on_block compares it.
size_t heap_offset(const void* ptr) {
    return static_cast<size_t>(reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(state.heap_base));
}

void* allocate(const char* routine, size_t size, size_t alignment) {
    check_init(routine);
    if (alignment)
        agree_on_block(routine, "alignment %zu, size %zu", alignment, size);
    else
        agree_on_block(routine, "size %zu", size);
    if (size == 0) return nullptr;
    size_t largest = 0;
    size_t offset = allocator_take(size, alignment, &largest);
    void* p = nullptr;
    if (offset == SIZE_MAX)
        warn(routine, "cannot allocate %zu bytes: only %zu bytes left in the symmetric heap (ISHMEM_SYMMETRIC_SIZE=%s)",
             size, largest, config.symmetric_text);
    else
        p = state.heap_base + offset;
    barrier_all(routine);
    return p;
}

}  // namespace

void* malloc(size_t size) { return allocate("ishmem_malloc", size, 0); }

void* align(size_t alignment, size_t size) {
    check_init("ishmem_align");
    check_power_of_two("ishmem_align", "alignment", alignment);
    if (alignment > heap_alignment(state.heap_size))
        fatal("ishmem_align", "alignment %zu is larger than the symmetric heap's base alignment %zu", alignment,
              heap_alignment(state.heap_size));
    return allocate("ishmem_align", size, alignment);
}

void* calloc(size_t count, size_t size) {
    const char* routine = "ishmem_calloc";
    check_init(routine);
    agree_on_block(routine, "count %zu, size %zu", count, size);
    if (count == 0 || size == 0) return nullptr;
    if (count > SIZE_MAX / size) {
        warn(routine, "cannot allocate %zu elements of %zu bytes: the size overflows", count, size);
        barrier_all(routine);
        return nullptr;
    }
    size_t largest = 0;
    size_t offset = allocator_take(count * size, 0, &largest);
    void* p = nullptr;
    if (offset == SIZE_MAX) {
        warn(routine, "cannot allocate %zu bytes: only %zu bytes left in the symmetric heap (ISHMEM_SYMMETRIC_SIZE=%s)",
             count * size, largest, config.symmetric_text);
    } else {
        p = state.heap_base + offset;
        // each PE zeroes its own copy before the barrier
        if (heap_on_gpu())
            gpu::fill_zero(p, count * size);
        else
            memset(p, 0, count * size);
    }
    barrier_all(routine);
    return p;
}

// Allocates the new block before freeing the old, so that every PE copies between the same two
// offsets; the old block is released only once the copy is done and the new block exists.
void* realloc(void* ptr, size_t size) {
    const char* routine = "ishmemx_realloc";
    check_init(routine);
    if (ptr)
        agree_on_block(routine, "ptr at offset %zu, size %zu", heap_offset(ptr), size);
    else
        agree_on_block(routine, "ptr null, size %zu", size);
    if (!ptr) return allocate(routine, size, 0);
    if (size == 0) {
        free(ptr);
        return nullptr;
    }
    const uintptr_t off = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(state.heap_base);
    size_t start = 0, old_size = 0;
    if (off >= state.heap_size || !allocator_find(off, &start, &old_size) || start != off)
        fatal(routine, "ptr (%p) was not returned by the library's allocation routines, or was freed already", ptr);
    barrier_all(routine);  // every PE's earlier operations on the old block are complete
    size_t largest = 0;
    const size_t new_off = allocator_take(size, 0, &largest);
    void* p = nullptr;
    if (new_off == SIZE_MAX) {
        warn(routine,
             "cannot resize a block to %zu bytes: only %zu bytes left in the symmetric heap "
             "(ISHMEM_SYMMETRIC_SIZE=%s); the block is unchanged",
             size, largest, config.symmetric_text);
    } else {
        p = state.heap_base + new_off;
        const size_t keep = size < old_size ? size : old_size;
        if (heap_on_gpu())
            gpu::copy(p, ptr, keep);
        else
            memcpy(p, ptr, keep);
        allocator_give_back(off);
    }
    barrier_all(routine);
    return p;
}

void free(void* ptr) {
    const char* routine = "ishmem_free";
    check_init(routine);
    if (ptr)
        agree_on_block(routine, "ptr at heap offset %zu", heap_offset(ptr));
    else
        agree_on_block(routine, "ptr null");
    barrier_all(routine);  // nobody may still be using the block on any PE
    if (!ptr) return;
    uintptr_t off = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(state.heap_base);
    if (off >= state.heap_size || !allocator_give_back(off))
        fatal(routine,
              "ptr (%p) was not returned by ishmem_malloc, ishmem_align or ishmem_calloc, or was freed already", ptr);
}

}  // namespace ishmemi::impl

// First fit over an ordered free list, with coalescing on free. Deterministic: the result depends
// only on the sequence of calls, so collective calls give every PE the same offsets.
#include "allocator.h"

#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>

namespace ishmemi {

namespace {

constexpr size_t min_alignment = 64;

std::mutex lock;
std::map<size_t, size_t> free_blocks;  // offset -> size, disjoint and never adjacent
struct used_block {
    size_t size;       // rounded up to min_alignment
    size_t requested;  // as asked for: the bounds that ISHMEM_CHECK=full enforces
};
std::map<size_t, used_block> used_blocks;  // offset -> block

size_t round_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

}  // namespace

void allocator_reset(size_t heap_size) {
    std::lock_guard<std::mutex> g(lock);
    free_blocks.clear();
    used_blocks.clear();
    size_t usable = heap_size & ~(min_alignment - 1);
    if (usable) free_blocks.emplace(0, usable);
}

size_t allocator_take(size_t size, size_t alignment, size_t* largest_free) {
    if (alignment < min_alignment) alignment = min_alignment;
    std::lock_guard<std::mutex> g(lock);
    if (size > SIZE_MAX - min_alignment) size = SIZE_MAX - min_alignment;  // fails below, as it must
    const size_t requested = size;
    size = round_up(size, min_alignment);
    size_t largest = 0;
    for (auto it = free_blocks.begin(); it != free_blocks.end(); ++it) {
        const size_t start = it->first, len = it->second;
        largest = len > largest ? len : largest;
        const size_t aligned = round_up(start, alignment);
        if (aligned < start || aligned - start > len || len - (aligned - start) < size) continue;
        // Split into [start, aligned) free, [aligned, aligned + size) used, rest free.
        const size_t head = aligned - start, tail = len - head - size;
        free_blocks.erase(it);
        if (head) free_blocks.emplace(start, head);
        if (tail) free_blocks.emplace(aligned + size, tail);
        used_blocks.emplace(aligned, used_block{size, requested});
        return aligned;
    }
    *largest_free = largest;
    return SIZE_MAX;
}

bool allocator_give_back(size_t offset) {
    std::lock_guard<std::mutex> g(lock);
    auto used = used_blocks.find(offset);
    if (used == used_blocks.end()) return false;
    size_t start = offset, len = used->second.size;
    used_blocks.erase(used);
    auto next = free_blocks.lower_bound(start);
    if (next != free_blocks.end() && next->first == start + len) {  // merge with the block after
        len += next->second;
        next = free_blocks.erase(next);
    }
    if (next != free_blocks.begin()) {  // merge with the block before
        auto prev = std::prev(next);
        if (prev->first + prev->second == start) {
            prev->second += len;
            return true;
        }
    }
    free_blocks.emplace(start, len);
    return true;
}

bool allocator_find(size_t offset, size_t* start, size_t* size) {
    std::lock_guard<std::mutex> g(lock);
    auto it = used_blocks.upper_bound(offset);
    if (it == used_blocks.begin()) return false;
    --it;
    if (offset >= it->first + it->second.size) return false;  // the padding counts as the block's
    *start = it->first;
    *size = it->second.requested;
    return true;
}

}  // namespace ishmemi

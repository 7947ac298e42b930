// The device collectives' ring (device_state.h): small calls, one hop, no flags.
// Included through cuda/collectives.cuh at the end of device.cuh.
#pragma once

#include "ishmem/cuda/coll/common.cuh"

namespace ishmemi::dev {
namespace coll {

// ---- the ring ---------------------------------------------------------------------------------

// Whether a call in which one PE receives `bytes` goes through the ring. The same on every member
// whatever its group: the library's kernels run such calls as one block
// (runtime/cuda/collectives.cu), never as a grid.
template <class G> __device__ inline bool through_ring(size_t bytes) {
    if constexpr (::cuda::std::is_same_v<G, kernel_grid>)
        return false;
    else
        return bytes <= dstate.stage_limit;
}

// Ring words that carry n data bytes: 4 in each, the last one padded.
__device__ inline size_t ring_words_for(size_t n) { return (n + 3) / 4; }

// Words a thread keeps in flight in the loops below: their loads go out together (one at a time,
// each would wait a trip to L2 or over the link before the next starts).
constexpr int ring_unroll = 4;

// Data word i of n bytes at src: 4 bytes (the last one padded with zeros).
__device__ inline unsigned ring_data(const void* src, size_t n, size_t i, bool words) {
    if (words && 4 * i + 4 <= n) return static_cast<const unsigned*>(src)[i];
    const auto* bytes = static_cast<const unsigned char*>(src);
    unsigned v = 0;
    for (size_t b = 0; b < 4 && 4 * i + b < n; ++b) v |= static_cast<unsigned>(bytes[4 * i + b]) << (8 * b);
    return v;
}

// Stores n bytes from src, 4 to a word tagged `tag`, into the ring words at `to` (a peer's). One
// relaxed 8-byte store each: a reader sees the whole word or none of it, so no fence is needed.
__device__ inline void ring_put(unsigned long long* to, const void* src, size_t n, unsigned tag, unsigned rank,
                                unsigned size) {
    const bool words = (reinterpret_cast<uintptr_t>(src) & 3) == 0;
    const unsigned long long high = static_cast<unsigned long long>(tag) << 32;
    const size_t nw = ring_words_for(n), whole = words ? n / 4 : 0;
    const auto* src32 = static_cast<const unsigned*>(src);
    size_t i = rank;
    for (; i + (ring_unroll - 1) * size < whole; i += ring_unroll * size) {
        unsigned v[ring_unroll];
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u) v[u] = src32[i + u * size];
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u)
            sys_ref(to + i + u * size).store(high | v[u], ::cuda::std::memory_order_relaxed);
    }
    for (; i < nw; i += size)
        sys_ref(to + i).store(high | ring_data(src, n, i, words), ::cuda::std::memory_order_relaxed);
}

// Ring word w (this PE's own ring; peers store into it) as it is now; wait_tagged: once it carries `tag`.
__device__ inline unsigned long long ring_load(unsigned long long* w) {
    return sys_ref(w).load(::cuda::std::memory_order_relaxed);
}
__device__ inline bool tagged(unsigned long long v, unsigned tag) { return static_cast<unsigned>(v >> 32) == tag; }
__device__ inline unsigned long long wait_tagged(unsigned long long* w, unsigned tag) {
    unsigned long long v;
    while (!tagged(v = ring_load(w), tag)) {}
    return v;
}

// Calls f(i, data) for each of the nw ring words at `from` that are this thread's (i = rank,
// rank + size, ...), once the word carries `tag`; ring_unroll polls in flight at a time.
template <class F> __device__ inline void ring_take_words(unsigned long long* from, size_t nw, unsigned tag,
                                                          unsigned rank, unsigned size, F&& f) {
    size_t i = rank;
    for (; i + (ring_unroll - 1) * size < nw; i += ring_unroll * size) {
        unsigned long long v[ring_unroll];
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u) v[u] = ring_load(from + i + u * size);
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u)
            if (!tagged(v[u], tag)) v[u] = wait_tagged(from + i + u * size, tag);
#pragma unroll
        for (int u = 0; u < ring_unroll; ++u) f(i + u * size, static_cast<unsigned>(v[u]));
    }
    for (; i < nw; i += size) f(i, static_cast<unsigned>(wait_tagged(from + i, tag)));
}

// Moves n bytes from this PE's ring words at `from` into dst, each word once it has arrived.
__device__ inline void ring_get(void* dst, unsigned long long* from, size_t n, unsigned tag, unsigned rank,
                                unsigned size) {
    auto* bytes = static_cast<unsigned char*>(dst);
    const bool words = (reinterpret_cast<uintptr_t>(dst) & 3) == 0;
    ring_take_words(from, ring_words_for(n), tag, rank, size, [&](size_t i, unsigned v) {
        if (words && 4 * i + 4 <= n) {
            reinterpret_cast<unsigned*>(dst)[i] = v;
        } else {
            for (size_t b = 0; b < 4 && 4 * i + b < n; ++b) bytes[4 * i + b] = static_cast<unsigned char>(v >> (8 * b));
        }
    });
}

// Element i of an array of T in the ring words at `from`, once it has arrived. (Waiting for all of
// them first, many in flight, then reading them again was slower: by 0.5 us for a sum of 8 B and
// 1.3 us for 8 KiB in a block, on 2 H100s.)
template <class T> __device__ inline T ring_element(unsigned long long* from, size_t i, unsigned tag) {
    if constexpr (sizeof(T) == 8) {
        const unsigned long long low = static_cast<unsigned>(wait_tagged(from + 2 * i, tag));
        const unsigned long long high = static_cast<unsigned>(wait_tagged(from + 2 * i + 1, tag));
        return ::cuda::std::bit_cast<T>(low | (high << 32));
    } else if constexpr (sizeof(T) == 4) {
        return ::cuda::std::bit_cast<T>(static_cast<unsigned>(wait_tagged(from + i, tag)));
    } else {
        const size_t byte = i * sizeof(T);
        const unsigned v = static_cast<unsigned>(wait_tagged(from + byte / 4, tag)) >> (8 * (byte % 4));
        if constexpr (sizeof(T) == 1)
            return ::cuda::std::bit_cast<T>(static_cast<unsigned char>(v));
        else
            return ::cuda::std::bit_cast<T>(static_cast<unsigned short>(v));
    }
}

// The gather-type calls through the ring (fcollect, alltoall, reductions, scans): every member
// stores block(m), `bytes` long, into member m's ring, as the me()-th of the call's blocks; then
// take(ring, words, tag) builds its dest from its own ring, where member j's block starts at word
// j * words. Nobody waits for another to enter, and nobody writes another's dest.
template <class G, class Block, class Take>
__device__ inline void exchange_ring(call<G>& k, size_t bytes, Block block, Take take) {
    const size_t words = ring_words_for(bytes);
    const auto span = k.ring_take(words * static_cast<size_t>(k.size()));
    for (int i = 1; i < k.size(); ++i) {
        const int m = (k.me() + i) % k.size();
        ring_put(k.ring_of(m) + span.at + k.me() * words, block(m), bytes, span.tag, k.rank(), k.threads());
    }
    k.sync();  // in place, my source is read before my dest is written
    take(k.ring_of(k.me()) + span.at, words, span.tag);
    k.finish();
}

// Broadcast through the ring: the root stores the array into every other member's ring, and goes on
// (it may be calls ahead of the others); each other member takes it from there.
template <class G>
__device__ inline void broadcast_ring(call<G>& k, void* dest, const void* source, size_t bytes, int root) {
    const auto span = k.ring_take(ring_words_for(bytes));
    if (k.me() == root) {
        for (int i = 1; i < k.size(); ++i)
            ring_put(k.ring_of((k.me() + i) % k.size()) + span.at, source, bytes, span.tag, k.rank(), k.threads());
        if (dest != source) copy_bytes(dest, source, bytes, k.rank(), k.threads());
    } else {
        ring_get(dest, k.ring_of(k.me()) + span.at, bytes, span.tag, k.rank(), k.threads());
    }
    k.finish();
}

// A gather's take from the ring: member j's block to dest + j * bytes, this PE's own from `mine`.
template <class G> __device__ inline void take_blocks(const call<G>& k, char* dest, const void* mine, size_t bytes,
                                                      unsigned long long* ring, size_t words, unsigned tag) {
    for (int j = 0; j < k.size(); ++j) {
        if (j == k.me()) {
            if (dest + j * bytes != mine) copy_bytes(dest + j * bytes, mine, bytes, k.rank(), k.threads());
        } else {
            ring_get(dest + j * bytes, ring + j * words, bytes, tag, k.rank(), k.threads());
        }
    }
}

}  // namespace coll

}  // namespace ishmemi::dev

// The MPI transport's RMA (overview: transport_mpi.cpp): puts and gets on the two windows, the bounce ring
// of small blocking puts, the strided forms, and their completion (flush, fence, quiet).
#include "mpi_transport.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace ishmemi::mpi {

void mpi_transport::put(void* dest, const void* source, size_t bytes, int pe, bool nbi) {
    const target t = locate(dest);
    if (t.region == region_messages) return put_messages(t, source, bytes, pe, nbi);
    std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
    if (!nbi && bytes <= bounce_max) {
        const char* copy = bounce(source, bytes);
        check(MPI_Put(copy, static_cast<int>(bytes), MPI_BYTE, pe, t.disp, static_cast<int>(bytes), MPI_BYTE, t.win),
              "MPI_Put", pe);
        dirty_.store(true, std::memory_order_relaxed);
        return;
    }
    for (size_t off = 0; off < bytes; off += slice_bytes) {
        const int n = static_cast<int>(std::min(slice_bytes, bytes - off));
        check(MPI_Put(static_cast<const char*>(source) + off, n, MPI_BYTE, pe, t.disp + MPI_Aint(off), n, MPI_BYTE,
                      t.win),
              "MPI_Put", pe);
    }
    dirty_.store(true, std::memory_order_relaxed);
    if (!nbi) check(MPI_Win_flush_local(pe, t.win), "MPI_Win_flush_local", pe);
}

void mpi_transport::get(void* dest, const void* source, size_t bytes, int pe, bool nbi) {
    complete_posts();  // a get sees this PE's earlier atomics
    const target t = locate(source);
    if (t.region == region_messages) return get_messages(dest, t, bytes, pe);
    std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
    for (size_t off = 0; off < bytes; off += slice_bytes) {
        const int n = static_cast<int>(std::min(slice_bytes, bytes - off));
        check(MPI_Get(static_cast<char*>(dest) + off, n, MPI_BYTE, pe, t.disp + MPI_Aint(off), n, MPI_BYTE, t.win),
              "MPI_Get", pe);
    }
    if (nbi)
        dirty_.store(true, std::memory_order_relaxed);
    else
        check(MPI_Win_flush(pe, t.win), "MPI_Win_flush", pe);
}

void mpi_transport::put_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem,
                                size_t count, int pe) {
    if (locate(dest).region == region_messages)
        return strided_messages(true, dest, dstride, source, sstride, elem, count, pe);
    strided(true, dest, dstride, source, sstride, elem, count, pe);
}

void mpi_transport::get_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem,
                                size_t count, int pe) {
    if (locate(source).region == region_messages) {
        complete_posts();
        return strided_messages(false, dest, dstride, source, sstride, elem, count, pe);
    }
    strided(false, dest, dstride, source, sstride, elem, count, pe);
}

// Puts only: a put-with-signal's data before its signal (posted atomics need no completion
// there: they are messages in order, and a signal's data waits only for the puts). Puts to a heap
// reached by messages are posted requests too: they are complete once the posts are, which a
// later window operation (a flag in the internal region) does not wait for by itself.
void mpi_transport::flush(int pe) {
    if (msg_bytes_) complete_posts();
    std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
    check(MPI_Win_flush(pe, heap_win_), "MPI_Win_flush", pe);
    check(MPI_Win_flush(pe, globals_win_), "MPI_Win_flush", pe);
}

// MPI has no cheaper ordering than completion on these windows: fence completes too.
void mpi_transport::fence() { quiet(); }

void mpi_transport::quiet() {
    complete_posts();
    if (!dirty_.exchange(false, std::memory_order_relaxed)) return;
    std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
    check(MPI_Win_flush_all(heap_win_), "MPI_Win_flush_all");
    check(MPI_Win_flush_all(globals_win_), "MPI_Win_flush_all");
    bounce_used_ = 0;  // every put from the ring has completed
}

// count blocks of elem bytes, stride bytes apart, as a committed MPI type (MPI_Type_free it).
MPI_Datatype mpi_transport::blocks_type(size_t count, size_t elem, ptrdiff_t stride) {
    MPI_Datatype t;
    check(MPI_Type_create_hvector(static_cast<int>(count), as_count(elem, "a strided element"), stride, MPI_BYTE, &t),
          "MPI_Type_create_hvector");
    MPI_Type_commit(&t);
    return t;
}

// Room for a blocking put's source in the ring (a copy of source, unless that is null), from which
// MPI may read until the put completes locally. A full ring is made free by completing its puts
// locally. Under mpi_lock_.
char* mpi_transport::bounce(const void* source, size_t bytes) {
    const size_t span = (bytes + 15) & ~size_t{15};
    if (bounce_used_ + span > bounce_bytes) {
        check(MPI_Win_flush_local_all(heap_win_), "MPI_Win_flush_local_all");
        check(MPI_Win_flush_local_all(globals_win_), "MPI_Win_flush_local_all");
        bounce_used_ = 0;
    }
    char* copy = bounce_ring_.get() + bounce_used_;
    if (source) memcpy(copy, source, bytes);  // (none: the caller packs it)
    bounce_used_ += span;
    return copy;
}

void mpi_transport::strided(bool is_put, void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride,
                            size_t elem, size_t count, int pe) {
    if (!count || !elem) return;
    if (!is_put) complete_posts();
    const void* remote_addr = is_put ? static_cast<const void*>(dest) : source;
    const target t = locate(remote_addr);
    const ptrdiff_t local_stride = is_put ? sstride : dstride, remote_stride = is_put ? dstride : sstride;
    // Small elements, spaced out at the target: packed in messages that the target unpacks (as on
    // a heap reached by messages; a put is then complete at quiet like a posted atomic, and fence,
    // signals and gets after it wait for it there). MPI moves a derived datatype one element at a
    // time, each a network operation of its own (4096 elements of 8 B: about 15 ms over UCX/TCP).
    if (t.region == region_window && count > 1 && elem <= tuning::strided_pack_max.value &&
        remote_stride != static_cast<ptrdiff_t>(elem)) {
        if (is_put) return put_strided_packed(t, dstride, static_cast<const char*>(source), sstride, elem, count, pe);
        return get_strided_packed(static_cast<char*>(dest), dstride, t, sstride, elem, count, pe);
    }
    const size_t chunk = static_cast<size_t>(INT_MAX);
    std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
    if (is_put && count <= bounce_max && elem <= bounce_max && elem * count <= bounce_max) {
        // Packed into the ring, like a small contiguous put: no wait for local completion.
        char* copy = bounce(nullptr, elem * count);
        for (size_t i = 0; i < count; ++i)
            std::memcpy(copy + i * elem, static_cast<const char*>(source) + static_cast<ptrdiff_t>(i) * sstride, elem);
        MPI_Datatype remote_type = blocks_type(count, elem, remote_stride);
        check(MPI_Put(copy, static_cast<int>(elem * count), MPI_BYTE, pe, t.disp, 1, remote_type, t.win), "MPI_Put",
              pe);
        MPI_Type_free(&remote_type);
        dirty_.store(true, std::memory_order_relaxed);
        return;
    }
    for (size_t first = 0; first < count; first += chunk) {
        const int n = static_cast<int>(std::min(chunk, count - first));
        MPI_Datatype local_type = blocks_type(static_cast<size_t>(n), elem, local_stride),
                     remote_type = blocks_type(static_cast<size_t>(n), elem, remote_stride);
        const MPI_Aint disp = t.disp + static_cast<MPI_Aint>(first) * remote_stride;
        if (is_put) {
            const char* src = static_cast<const char*>(source) + static_cast<ptrdiff_t>(first) * sstride;
            check(MPI_Put(src, 1, local_type, pe, disp, 1, remote_type, t.win), "MPI_Put", pe);
        } else {
            char* dst = static_cast<char*>(dest) + static_cast<ptrdiff_t>(first) * dstride;
            check(MPI_Get(dst, 1, local_type, pe, disp, 1, remote_type, t.win), "MPI_Get", pe);
        }
        MPI_Type_free(&local_type);
        MPI_Type_free(&remote_type);
    }
    if (is_put) {
        dirty_.store(true, std::memory_order_relaxed);
        check(MPI_Win_flush_local(pe, t.win), "MPI_Win_flush_local", pe);
    } else {
        check(MPI_Win_flush(pe, t.win), "MPI_Win_flush", pe);
    }
}

}  // namespace ishmemi::mpi

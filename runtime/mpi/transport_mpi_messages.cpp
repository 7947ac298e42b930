// The MPI transport's RMA on a heap reached by messages (overview: transport_mpi.cpp;
// remote_heap_by_messages in impl/transport.h): a heap in GPU memory, which MPI need not be able
// to reach, and the host heap under ISHMEM_MPI_RMA=messages (so that CI runs this path without a
// GPU). A put is posted requests that carry the data (am_put), which the target stores in order with
// the PE's other requests; a get is a request answered with the data (am_get); atomics are the usual
// requests, which the target does with gpu::rmw on a GPU heap, atomic with its node's GPUs. Both
// ends copy between the heap and host memory with copy_heap: gpu::copy on the CUDA backend (the
// source or dest of a GPU thread's request is GPU memory), memcpy otherwise.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ishmem/impl/sync.h"
#include "mpi_transport.h"

namespace ishmemi::mpi {

void copy_heap(void* dst, const void* src, size_t bytes) {
    if (heap_on_gpu())
        gpu::copy(dst, src, bytes);
    else
        std::memcpy(dst, src, bytes);
}

// Posted chunks of up to am_data_max bytes: the source is copied into the request, so the caller
// may reuse it on return; the data is in place at the target by the next quiet, and before any later
// request of this PE to that target (they are served in order).
void mpi_transport::put_messages(const target& t, const void* source, size_t bytes, int pe) {
    for (size_t off = 0; off < bytes; off += am_data_max) {
        const size_t n = std::min(am_data_max, bytes - off);
        am_request r{};
        r.op = am_put;
        r.data_bytes = static_cast<uint32_t>(n);
        r.data_region = t.region;
        r.data_disp = static_cast<uint64_t>(t.disp) + off;
        post(r, static_cast<const char*>(source) + off, pe);
    }
}

// One request per am_get_max bytes, each answered with its data into a staging buffer of host
// memory, from which it goes to dest.
void mpi_transport::get_messages(void* dest, const target& t, size_t bytes, int pe) {
    std::vector<char> stage(std::min(bytes, am_get_max));
    for (size_t off = 0; off < bytes; off += am_get_max) {
        const size_t n = std::min(am_get_max, bytes - off);
        am_request r{};
        r.op = am_get;
        r.region = t.region;
        r.disp = static_cast<uint64_t>(t.disp) + off;
        r.value = n;
        r.reply_tag =
            tag_reply_first + static_cast<int32_t>(next_tag_.fetch_add(1, std::memory_order_relaxed) % tag_replies);
        MPI_Request rq[2];
        {
            std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
            check(MPI_Irecv(stage.data(), static_cast<int>(n), MPI_BYTE, pe, r.reply_tag, am_comm_, &rq[0]),
                  "MPI_Irecv", pe);
            check(MPI_Isend(&r, sizeof r, MPI_BYTE, pe, tag_request, am_comm_, &rq[1]), "MPI_Isend", pe);
        }
        // Serves others meanwhile, as amo() does: two PEs may be getting from each other.
        for (backoff b{wait_spin_limit, 0};; b.pause()) {
            int done = 0;
            {
                std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
                check(MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE), "MPI_Testall", pe);
            }
            if (done) break;
        }
        copy_heap(static_cast<char*>(dest) + off, stage.data(), n);
    }
}

// Element by element (a put or get each): strided transfers on a heap reached by messages are
// correct, not fast.
void mpi_transport::strided_messages(bool is_put, void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride,
                                     size_t elem, size_t count, int pe) {
    auto* d = static_cast<char*>(dest);
    const auto* s = static_cast<const char*>(source);
    for (size_t k = 0; k < count; ++k) {
        char* dk = d + static_cast<ptrdiff_t>(k) * dstride;
        const char* sk = s + static_cast<ptrdiff_t>(k) * sstride;
        if (is_put)
            put_messages(locate(dk), sk, elem, pe);
        else
            get_messages(dk, locate(sk), elem, pe);
    }
}

// The answer to an am_get from PE `to`: the bytes, from a staging buffer. Under mpi_lock_ (serve).
void mpi_transport::serve_get(const am_request& r, int to) {
    const size_t bytes = static_cast<size_t>(r.value);
    if (get_stage_.size() < bytes) get_stage_.resize(bytes);
    copy_heap(get_stage_.data(), region_base(r.region) + r.disp, bytes);
    check(MPI_Send(get_stage_.data(), static_cast<int>(bytes), MPI_BYTE, to, r.reply_tag, am_comm_), "MPI_Send", to);
}

}  // namespace ishmemi::mpi

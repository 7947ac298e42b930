// The MPI transport's RMA on a heap reached by messages (overview: transport_mpi.cpp;
// remote_heap_by_messages in impl/transport.h): a heap in GPU memory, which MPI need not be able
// to reach, and the host heap under ISHMEM_MPI_RMA=messages (so that CI runs this path without a
// GPU). Atomics are the usual requests, which the target does with gpu::rmw on a GPU heap, atomic
// with its node's GPUs. Both ends copy between the heap and host memory with copy_heap: gpu::copy
// on the CUDA backend (the source or dest of a GPU thread's request is GPU memory), memcpy
// otherwise.
//
// Puts and gets, by size:
// - A put below am_put_whole_min is posted requests that carry up to am_data_max bytes each
//   (am_put): the source is copied into them, so a blocking put returns at once, and the target
//   stores them in order with the PE's other requests.
// - A larger put is one request (am_put_whole: where, how many bytes, and a tag of its own)
//   followed by its data in messages of up to am_piece_max bytes on that tag, which MPI moves by
//   rendezvous, straight from the sender's buffer into the receiver's. The target, serving the
//   request in its turn, receives the pieces into a staging buffer of am_stages pieces (the next
//   ones arrive while it lands one with copy_heap) and serves the PE's next request only after
//   the last: later requests (a signal, an atomic, the load that completes a quiet) still find
//   the data in place. A blocking put's request is answered then (see put_whole).
// - A get is one request (am_get: where, how many bytes) answered in pieces on its reply tag,
//   which the target copies out of its heap into the same staging buffer and sends while the next
//   piece is copied.
// - A strided put packs its elements into posted requests of up to am_data_max bytes each
//   (am_put_strided: the element size and the dest stride with them), which the target unpacks
//   into place in its turn, like an am_put; one of at least am_put_whole_min bytes of elements is
//   packed into the origin's staging and goes like a large put (am_put_whole_strided), in pieces
//   of whole elements that the target unpacks. A strided get is one request per am_piece_max bytes
//   of elements (am_get_strided), answered with them packed in one message, which the origin
//   unpacks.
// No PE ever waits, inside serve, for something another PE posts only later: the target's waits
// for pieces are MPI waits on messages that the other side has already posted in full (every
// piece of a put is sent, and every piece of a get has a posted receive, before its request goes
// out), so two PEs putting to or getting from each other at once cannot wait on each other.
// On the host the origin sends from the caller's source and receives into the caller's dest;
// where the heap is in GPU memory (which MPI cannot reach) it stages them in host memory of its
// own in chunks of am_chunk bytes, two of them, so that one chunk's copy overlaps the other's
// messages. The staging memory is bounded at both ends: am_stages pieces at the target,
// 2 x am_chunk at the origin.
#include <algorithm>
#include <chrono>
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

void copy_heap_strided(void* dst, size_t dst_stride, const void* src, size_t src_stride, size_t elem, size_t n) {
    if (dst_stride == elem && src_stride == elem) return copy_heap(dst, src, elem * n);
    if (heap_on_gpu()) return gpu::copy_2d(dst, dst_stride, src, src_stride, elem, n);
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    for (size_t i = 0; i < n; ++i) std::memcpy(d + i * dst_stride, s + i * src_stride, elem);
}

namespace {

// Waits for rq with the MPI lock held (serve's waits: the other side has posted its part), polling
// MPI, which drives its progress. It keeps the core for up to held_spin before it yields between
// polls (for PEs that outnumber cores): a thread that yields as soon as a piece is late loses
// the core to the PE's other busy threads for a time slice, a millisecond or more per piece on
// a loaded machine, which is how a blocking MPI call would not wait.
void wait_held(MPI_Request* rq, int pe) {
    constexpr auto held_spin = std::chrono::microseconds(500);
    const auto start = std::chrono::steady_clock::now();
    for (unsigned polls = 0;; ++polls) {
        int done = 0;
        check(MPI_Test(rq, &done, MPI_STATUS_IGNORE), "MPI_Test", pe);
        if (done) return;
        if (polls % 64 != 63 || std::chrono::steady_clock::now() - start < held_spin)
            cpu_relax();
        else
            sched_yield();
    }
}

// The pieces of `bytes` of data, of `piece` bytes each but the last (am_piece_max; whole elements
// of a packed strided put: piece_of).
size_t pieces(size_t bytes, size_t piece = am_piece_max) { return (bytes + piece - 1) / piece; }
size_t piece_bytes(size_t bytes, size_t k, size_t piece = am_piece_max) { return std::min(piece, bytes - k * piece); }
// The piece of a packed strided put of elements of elem bytes: as many whole ones as one holds.
size_t piece_of(size_t elem) { return am_piece_max / elem * elem; }

}  // namespace

int mpi_transport::data_tag() {
    return tag_data_first + static_cast<int>(next_data_tag_.fetch_add(1, std::memory_order_relaxed) % tag_datas);
}

// Waits for every request of rq (none may be null-terminated: all of them), serving others
// meanwhile (backoff::pause calls progress()): two PEs may be waiting for each other.
void mpi_transport::wait_serving(std::vector<MPI_Request>& rq, int pe) {
    for (backoff b{wait_spin_limit, 0};; b.pause()) {
        int done = 0;
        {
            std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
            check(MPI_Testall(static_cast<int>(rq.size()), rq.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall", pe);
        }
        if (done) return;
    }
}

void mpi_transport::put_messages(const target& t, const void* source, size_t bytes, int pe, bool nbi) {
    if (bytes >= am_put_whole_min) return put_whole(t, source, bytes, pe, nbi);
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

// One am_put_whole request, then its pieces, from the caller's source. A blocking put waits for its
// pieces to leave anyway, which needs the target to take them: its request is answered once they
// are in place, and the put is complete when it returns (a quiet after it has nothing to wait for).
// An nbi one is posted (post()), and quiet completes it like every post: the target answers the
// load that follows it only after its last piece is in place. Where the origin stages (a GPU heap)
// it is a staged strided put of 1-byte elements (put_strided_whole), posted either way.
void mpi_transport::put_whole(const target& t, const void* source, size_t bytes, int pe, bool nbi) {
    if (stage_at_origin()) return put_strided_whole(t, 1, static_cast<const char*>(source), 1, 1, bytes, pe);
    std::vector<MPI_Request> mine;  // a blocking put's answer, request and pieces
    uint64_t answer = 0;
    std::vector<MPI_Request>* rq = nbi ? &data_sends_ : &mine;
    am_request r = request(op_load, heap_lo_, 8, 0, 0);  // (the answered form's reply tag)
    r.op = am_put_whole;
    r.region = t.region;
    r.disp = static_cast<uint64_t>(t.disp);
    r.value = bytes;
    r.cond = static_cast<uint64_t>(data_tag());  // the pieces' tag
    if (nbi) post(r, nullptr, pe);
    {
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        if (!nbi) {
            mine.resize(2);
            send_fetching(r, &answer, pe, mine.data());
        }
        for (size_t k = 0; k < pieces(bytes); ++k) {
            MPI_Request q;
            check(
                MPI_Isend(static_cast<const char*>(source) + k * am_piece_max, static_cast<int>(piece_bytes(bytes, k)),
                          MPI_BYTE, pe, static_cast<int>(r.cond), am_comm_, &q),
                "MPI_Isend", pe);
            rq->push_back(q);
        }
    }
    if (!nbi) wait_serving(mine, pe);  // (r lives until its send is done)
}

// Per chunk (the whole get into dest; a chunk of the origin's staging otherwise): a receive posted
// for each piece, then the request; once every piece is in, the chunk goes from the staging to dest.
void mpi_transport::get_messages(void* dest, const target& t, size_t bytes, int pe) {
    const bool staged = stage_at_origin();
    std::unique_lock<std::mutex> own_stage;
    if (staged) own_stage = std::unique_lock<std::mutex>(origin_stage_mu_);
    const size_t chunk = staged ? am_chunk : bytes;
    std::vector<MPI_Request> rq;
    for (size_t off = 0; off < bytes; off += chunk) {
        const size_t n = std::min(chunk, bytes - off);
        char* into = static_cast<char*>(dest) + off;
        if (staged) {  // a put's chunk may still be leaving from the staging
            wait_serving(origin_rq_[0], pe), origin_rq_[0].clear();
            wait_serving(origin_rq_[1], pe), origin_rq_[1].clear();
            into = origin_stage(0);
        }
        am_request r{};
        r.op = am_get;
        r.region = t.region;
        r.disp = static_cast<uint64_t>(t.disp) + off;
        r.value = n;
        r.reply_tag =
            tag_reply_first + static_cast<int32_t>(next_tag_.fetch_add(1, std::memory_order_relaxed) % tag_replies);
        rq.assign(pieces(n) + 1, MPI_REQUEST_NULL);
        {
            std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
            for (size_t k = 0; k < pieces(n); ++k)
                check(MPI_Irecv(into + k * am_piece_max, static_cast<int>(piece_bytes(n, k)), MPI_BYTE, pe, r.reply_tag,
                                am_comm_, &rq[k]),
                      "MPI_Irecv", pe);
            check(MPI_Isend(&r, sizeof r, MPI_BYTE, pe, tag_request, am_comm_, &rq.back()), "MPI_Isend", pe);
        }
        wait_serving(rq, pe);
        if (staged) copy_heap(static_cast<char*>(dest) + off, into, n);
    }
}

// Packed (put_strided_packed, get_strided_packed), except where contiguous at both ends (one put
// or get) and where one element is more than a packed request carries (am_data_max for a put,
// am_piece_max for a get's answer): there element by element, each a put or get of its own, which
// take elements of any size; packing would save no requests.
void mpi_transport::strided_messages(bool is_put, void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride,
                                     size_t elem, size_t count, int pe) {
    if (!count || !elem) return;
    auto* d = static_cast<char*>(dest);
    const auto* s = static_cast<const char*>(source);
    const auto whole = static_cast<ptrdiff_t>(elem);
    if (dstride == whole && sstride == whole) {
        if (is_put) return put_messages(locate(d), s, elem * count, pe, false);
        return get_messages(d, locate(s), elem * count, pe);
    }
    if (elem <= (is_put ? am_data_max : am_piece_max)) {
        if (is_put) return put_strided_packed(locate(d), dstride, s, sstride, elem, count, pe);
        return get_strided_packed(d, dstride, locate(s), sstride, elem, count, pe);
    }
    for (size_t k = 0; k < count; ++k) {
        char* dk = d + static_cast<ptrdiff_t>(k) * dstride;
        const char* sk = s + static_cast<ptrdiff_t>(k) * sstride;
        if (is_put)
            put_messages(locate(dk), sk, elem, pe, false);
        else
            get_messages(dk, locate(sk), elem, pe);
    }
}

// Posted am_put_strided requests of as many whole elements as am_data_max holds, each packed from
// the source as it is posted: the put returns with the source free, and the target lands them in
// order with the PE's other requests (a later fence, signal or quiet finds them in place).
void mpi_transport::put_strided_packed(const target& t, ptrdiff_t dstride, const char* source, ptrdiff_t sstride,
                                       size_t elem, size_t count, int pe) {
    if (count * elem >= am_put_whole_min) return put_strided_whole(t, dstride, source, sstride, elem, count, pe);
    const size_t per = am_data_max / elem;
    for (size_t first = 0; first < count; first += per) {
        const size_t n = std::min(per, count - first);
        am_request r{};
        r.op = am_put_strided;
        r.data_bytes = static_cast<uint32_t>(n * elem);
        r.data_region = t.region;
        r.data_disp = static_cast<uint64_t>(t.disp + static_cast<ptrdiff_t>(first) * dstride);
        r.value = elem;
        r.cond = static_cast<uint64_t>(dstride);
        const char* from = source + static_cast<ptrdiff_t>(first) * sstride;
        post_packed(
            r, [&](unsigned char* into) { copy_heap_strided(into, elem, from, static_cast<size_t>(sstride), elem, n); },
            pe);
    }
}

// Per chunk of the origin's staging (whole pieces of whole elements): the elements packed into a
// half of it once the chunk before last has left from there, one posted am_put_whole_strided, then
// its pieces. The put returns with the source free; the target lands the chunk before it serves
// the PE's next request, and quiet completes it like every post. (A staged contiguous put is one
// of 1-byte elements, which both ends copy as one block: copy_heap_strided.)
void mpi_transport::put_strided_whole(const target& t, ptrdiff_t dstride, const char* source, ptrdiff_t sstride,
                                      size_t elem, size_t count, int pe) {
    std::lock_guard<std::mutex> own_stage(origin_stage_mu_);
    const size_t piece = piece_of(elem), per_chunk = am_chunk / piece * piece / elem;
    for (size_t first = 0, c = 0; first < count; first += per_chunk, ++c) {
        const size_t n = std::min(per_chunk, count - first), bytes = n * elem;
        std::vector<MPI_Request>& half = origin_rq_[c % 2];
        wait_serving(half, pe);
        half.clear();
        char* stage = origin_stage(static_cast<int>(c % 2));
        copy_heap_strided(stage, elem, source + static_cast<ptrdiff_t>(first) * sstride, static_cast<size_t>(sstride),
                          elem, n);
        am_request r{};
        r.op = am_put_whole_strided;
        r.region = t.region;
        r.disp = static_cast<uint64_t>(t.disp + static_cast<ptrdiff_t>(first) * dstride);
        r.value = bytes;
        r.cond = static_cast<uint64_t>(data_tag());  // the pieces' tag
        r.elem = static_cast<uint16_t>(elem);
        r.data_disp = static_cast<uint64_t>(dstride);
        post(r, nullptr, pe);
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        for (size_t k = 0; k < pieces(bytes, piece); ++k) {
            MPI_Request q;
            check(MPI_Isend(stage + k * piece, static_cast<int>(piece_bytes(bytes, k, piece)), MPI_BYTE, pe,
                            static_cast<int>(r.cond), am_comm_, &q),
                  "MPI_Isend", pe);
            half.push_back(q);
        }
    }
}

// One am_get_strided per am_piece_max bytes of elements: a receive for the packed answer, the
// request, then the elements unpacked from it into dest.
void mpi_transport::get_strided_packed(char* dest, ptrdiff_t dstride, const target& t, ptrdiff_t sstride, size_t elem,
                                       size_t count, int pe) {
    const size_t per = am_piece_max / elem;
    std::vector<char> packed(std::min(per, count) * elem);
    for (size_t first = 0; first < count; first += per) {
        const size_t n = std::min(per, count - first);
        am_request r{};
        r.op = am_get_strided;
        r.region = t.region;
        r.disp = static_cast<uint64_t>(t.disp + static_cast<ptrdiff_t>(first) * sstride);
        r.value = elem;
        r.cond = static_cast<uint64_t>(sstride);
        r.data_disp = n;
        r.reply_tag =
            tag_reply_first + static_cast<int32_t>(next_tag_.fetch_add(1, std::memory_order_relaxed) % tag_replies);
        std::vector<MPI_Request> rq(2, MPI_REQUEST_NULL);
        {
            std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
            check(MPI_Irecv(packed.data(), static_cast<int>(n * elem), MPI_BYTE, pe, r.reply_tag, am_comm_, &rq[0]),
                  "MPI_Irecv", pe);
            check(MPI_Isend(&r, sizeof r, MPI_BYTE, pe, tag_request, am_comm_, &rq[1]), "MPI_Isend", pe);
        }
        wait_serving(rq, pe);
        copy_heap_strided(dest + static_cast<ptrdiff_t>(first) * dstride, static_cast<size_t>(dstride), packed.data(),
                          elem, elem, n);
    }
}

// The staging of serve: am_stages pieces. Under mpi_lock_.
char* mpi_transport::serve_stage() {
    if (!serve_stage_) serve_stage_.reset(new char[am_stages * am_piece_max]);
    return serve_stage_.get();
}

// The origin's staging: two chunks. Under origin_stage_mu_.
char* mpi_transport::origin_stage(int half) {
    if (!origin_stage_) origin_stage_.reset(new char[2 * am_chunk]);
    return origin_stage_.get() + static_cast<size_t>(half) * am_chunk;
}

// An am_put_whole or am_put_whole_strided from PE `from`: its pieces into the staging, each landed
// while the next ones arrive (a strided one element by element). Under mpi_lock_ (serve).
void mpi_transport::serve_put_whole(const am_request& r, int from) {
    const bool strided = r.op == am_put_whole_strided;
    const size_t elem = strided ? r.elem : 1, piece = strided ? piece_of(elem) : am_piece_max;
    const size_t bytes = static_cast<size_t>(r.value), n = pieces(bytes, piece);
    const int tag = static_cast<int>(r.cond);
    char* to = region_base(r.region) + r.disp;
    char* stage = serve_stage();
    MPI_Request rq[am_stages];
    for (size_t k = 0; k < n && k < am_stages; ++k)
        check(MPI_Irecv(stage + k * am_piece_max, static_cast<int>(piece_bytes(bytes, k, piece)), MPI_BYTE, from, tag,
                        am_comm_, &rq[k]),
              "MPI_Irecv", from);
    for (size_t k = 0; k < n; ++k) {
        const size_t s = k % am_stages, got = piece_bytes(bytes, k, piece);
        wait_held(&rq[s], from);
        if (strided)  // piece k starts at element k * piece / elem
            copy_heap_strided(to + static_cast<ptrdiff_t>(k * piece / elem) * static_cast<ptrdiff_t>(r.data_disp),
                              static_cast<size_t>(r.data_disp), stage + s * am_piece_max, elem, elem, got / elem);
        else
            copy_heap(to + k * piece, stage + s * am_piece_max, got);
        if (k + am_stages < n)
            check(MPI_Irecv(stage + s * am_piece_max, static_cast<int>(piece_bytes(bytes, k + am_stages, piece)),
                            MPI_BYTE, from, tag, am_comm_, &rq[s]),
                  "MPI_Irecv", from);
    }
    if (!r.silent) {  // a blocking put waits for this
        const uint64_t none = 0;
        check(MPI_Send(&none, 1, MPI_UINT64_T, from, r.reply_tag, am_comm_), "MPI_Send", from);
    }
}

// The answer to an am_get from PE `to`: its pieces, each copied into the staging and sent while
// the next is copied. Under mpi_lock_ (serve).
void mpi_transport::serve_get(const am_request& r, int to) {
    const size_t bytes = static_cast<size_t>(r.value), n = pieces(bytes);
    const char* from = region_base(r.region) + r.disp;
    char* stage = serve_stage();
    if (n == 1) {  // one piece: sent at once
        copy_heap(stage, from, bytes);
        check(MPI_Send(stage, static_cast<int>(bytes), MPI_BYTE, to, r.reply_tag, am_comm_), "MPI_Send", to);
        return;
    }
    MPI_Request rq[am_stages];
    std::fill(rq, rq + am_stages, MPI_REQUEST_NULL);
    for (size_t k = 0; k < n; ++k) {
        const size_t s = k % am_stages;
        wait_held(&rq[s], to);
        copy_heap(stage + s * am_piece_max, from + k * am_piece_max, piece_bytes(bytes, k));
        check(MPI_Isend(stage + s * am_piece_max, static_cast<int>(piece_bytes(bytes, k)), MPI_BYTE, to, r.reply_tag,
                        am_comm_, &rq[s]),
              "MPI_Isend", to);
    }
    for (MPI_Request& q : rq) wait_held(&q, to);
}

// The answer to an am_get_strided from PE `to`: its elements packed into the staging (at most
// am_piece_max bytes), sent as one message. Under mpi_lock_ (serve).
void mpi_transport::serve_get_strided(const am_request& r, int to) {
    const size_t elem = static_cast<size_t>(r.value), n = static_cast<size_t>(r.data_disp);
    char* stage = serve_stage();
    copy_heap_strided(stage, elem, region_base(r.region) + r.disp, static_cast<size_t>(r.cond), elem, n);
    check(MPI_Send(stage, static_cast<int>(n * elem), MPI_BYTE, to, r.reply_tag, am_comm_), "MPI_Send", to);
}

}  // namespace ishmemi::mpi

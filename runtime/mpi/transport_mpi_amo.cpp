// The MPI transport's atomics (overview: transport_mpi.cpp): every remote AMO and small put-with-signal is
// a request to the target PE, fetching ones answered, posted ones completed by complete_posts.
#include "mpi_transport.h"

#include <cstring>

#include "ishmem/impl/sync.h"

namespace ishmemi::mpi {

uint64_t mpi_transport::amo(rmw_op op, void* dest, unsigned size, uint64_t value, uint64_t cond, int pe) {
    const am_request r = request(op, dest, size, value, cond);
    uint64_t old = 0;
    MPI_Request rq[2];
    {
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        send_fetching(r, &old, pe, rq);
    }
    // Serve others meanwhile (backoff::pause calls progress()): two PEs may be waiting for each
    // other's answer. It yields the core like every wait, for PEs and threads that outnumber cores.
    for (backoff b{wait_spin_limit, 0};; b.pause()) {
        int done = 0;
        {
            std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
            check(MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE), "MPI_Testall", pe);
        }
        if (done) return old;
    }
}

// The request goes out from a slot of posts_, which holds it until MPI is done sending it; with
// every slot in use it first waits for the oldest. The target sends no answer: a later fetching
// request to it is answered after this one is done (complete_posts).
void mpi_transport::amo_post(rmw_op op, void* dest, unsigned size, uint64_t value, int pe) {
    post(request(op, dest, size, value, 0), nullptr, pe);
}

// Up to am_data_max bytes: the data travels in the signal's request, and the target stores it
// before the signal, so nothing waits for the data to land first.
bool mpi_transport::put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal,
                               bool add, int pe) {
    if (bytes == 0 || bytes > am_data_max) return false;
    am_request r = request(add ? op_add : op_store, sig_addr, 8, signal, 0);
    const target d = locate(dest);
    r.data_bytes = static_cast<uint32_t>(bytes);
    r.data_region = d.region;
    r.data_disp = static_cast<uint64_t>(d.disp);
    post(r, source, pe);
    return true;
}

// Sends r (and data_bytes of data) from a slot of posts_, with no answer (see amo_post).
void mpi_transport::post(am_request r, const void* data, int pe) {
    // (none with amo_post; a GPU thread's put or put-with-signal may come from GPU memory)
    if (!data) return post_packed(r, {}, pe);
    post_packed(
        r, [&](unsigned char* into) { copy_heap(into, data, r.data_bytes); }, pe);
}

// The data is packed straight into the slot, so the caller's source is free when this returns.
void mpi_transport::post_packed(am_request r, const std::function<void(unsigned char*)>& pack, int pe) {
    r.silent = 1;
    for (backoff b{wait_spin_limit, 0};; b.pause()) {
        {
            std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
            retire_posts();
            if (posts_n_ < posts_max) {
                posted_amo& a = posts_[(posts_head_ + posts_n_) % posts_max];
                a.m.r = r;
                if (pack) pack(a.m.data);
                check(MPI_Isend(&a.m, static_cast<int>(sizeof a.m.r + r.data_bytes), MPI_BYTE, pe, tag_request,
                                am_comm_, &a.rq),
                      "MPI_Isend", pe);
                a.pe = pe;
                ++posts_n_;
                if (!posted_to_[pe]) posted_to_[pe] = 1, posted_pes_.push_back(pe);
                posts_out_.store(true, std::memory_order_release);
                return;
            }
        }
    }
}

am_request mpi_transport::request(rmw_op op, void* dest, unsigned size, uint64_t value, uint64_t cond) {
    const target t = locate(dest);
    am_request r{};  // no data, answered: put_signal and post() change that
    r.op = static_cast<uint8_t>(op);
    r.size = static_cast<uint8_t>(size);
    r.region = t.region;
    r.reply_tag =
        tag_reply_first + static_cast<int32_t>(next_tag_.fetch_add(1, std::memory_order_relaxed) % tag_replies);
    r.disp = static_cast<uint64_t>(t.disp);
    r.value = value;
    r.cond = cond;
    return r;
}

// Sends a request that is answered: rq[0] receives the old value into *answer, rq[1] sends r
// (which must live until rq[1] is done). Under mpi_lock_.
void mpi_transport::send_fetching(const am_request& r, uint64_t* answer, int pe, MPI_Request rq[2]) {
    check(MPI_Irecv(answer, 1, MPI_UINT64_T, pe, r.reply_tag, am_comm_, &rq[0]), "MPI_Irecv", pe);
    check(MPI_Isend(&r, sizeof r, MPI_BYTE, pe, tag_request, am_comm_, &rq[1]), "MPI_Isend", pe);
}

// Frees the slots of posted atomics that MPI is done sending, oldest first, and forgets the
// pieces of nbi puts that it is done sending. Under mpi_lock_.
void mpi_transport::retire_posts() {
    if (!data_sends_.empty()) {
        int done = 0;
        check(MPI_Testall(static_cast<int>(data_sends_.size()), data_sends_.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
        if (done) data_sends_.clear();
    }
    while (posts_n_ > 0) {
        posted_amo& a = posts_[posts_head_];
        int done = 0;
        check(MPI_Test(&a.rq, &done, MPI_STATUS_IGNORE), "MPI_Test", a.pe);
        if (!done) return;
        posts_head_ = (posts_head_ + 1) % posts_max;
        --posts_n_;
    }
}

// Waits until every posted atomic is done at its target: one fetching request (a load of a word
// of the internal region) to each PE that has posts, answered after them (MPI keeps one
// sender's messages to one target in order, and the target serves them in turn), and until MPI
// is done with the sources of nbi puts (data_sends_). Serves requests meanwhile.
// One thread at a time (completing_): another thread's quiet waits for this one's loads too.
void mpi_transport::complete_posts() {
    if (!posts_out_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> one_at_a_time(completing_);
    std::vector<int> pes;
    std::vector<am_request> loads;
    std::vector<uint64_t> answers;
    std::vector<MPI_Request> rq;
    {
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        if (posted_pes_.empty()) {  // another thread completed them
            posts_out_.store(false, std::memory_order_release);
            return;
        }
        pes.swap(posted_pes_);
        for (int pe : pes) posted_to_[pe] = 0;
        loads.reserve(pes.size()), answers.assign(pes.size(), 0), rq.resize(2 * pes.size());
        for (size_t k = 0; k < pes.size(); ++k) {
            loads.push_back(request(op_load, heap_lo_, 8, 0, 0));
            send_fetching(loads[k], &answers[k], pes[k], &rq[2 * k]);
        }
    }
    for (backoff b{wait_spin_limit, 0};; b.pause()) {
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        retire_posts();
        int done = 0;
        check(MPI_Testall(static_cast<int>(rq.size()), rq.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
        if (!done || !data_sends_.empty()) continue;
        if (posted_pes_.empty()) posts_out_.store(false, std::memory_order_release);
        return;
    }
}

}  // namespace ishmemi::mpi

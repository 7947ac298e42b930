// The MPI transport's class: its state, and its members by concern, defined in transport_mpi.cpp
// (setup and teardown, with the overview of the protocol), transport_mpi_rma.cpp (puts, gets, quiet),
// transport_mpi_amo.cpp (atomics and put-with-signal as requests), transport_mpi_progress.cpp
// (serving requests, the progress thread) and transport_mpi_coll.cpp (teams and collectives).
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "ishmem/impl/teams.h"
#include "ishmem/impl/transport.h"
#include "ishmem/impl/tuning.h"
#include "coll_p2p.h"
#include "mpi_check.h"
#include "mpi_lock.h"

namespace ishmemi::mpi {

// MPI counts are ints: transfers of more bytes go in slices of this many.
constexpr size_t slice_bytes = size_t{1} << 30;

// Where a symmetric address lies: the windows' memory (the internal region, and the heap unless it
// is reached by messages), the executable's globals, or the heap reached by messages
// (remote_heap_by_messages: a GPU heap, which the target's node lands with gpu::copy and gpu::rmw).
enum region_kind : uint8_t { region_window = 0, region_globals = 1, region_messages = 2 };

// A request for an AMO on the receiving PE; it answers with the old value on reply_tag. A small
// put-with-signal is one too: its data_bytes of data follow it in the message, and the receiver
// stores them at data_disp of data_region before it updates the signal. On the heap reached by
// messages (transport_mpi_messages.cpp), a small put is one (op am_put: the data and nothing after
// it), a large one is one (op am_put_whole: `value` bytes for disp of region follow in pieces on
// tag `cond`; answered on reply_tag once they are in place, unless silent) and a get is one (op am_get: the receiver
// sends `value` bytes from disp of region back in pieces on reply_tag).
// Strided transfers on that heap, and those of small elements on a window heap (strided_pack_max),
// move packed: am_put_strided carries data_bytes of packed elements
// of `value` bytes each, which the receiver lands from data_disp of data_region on, `cond` bytes
// apart; am_get_strided asks for data_disp elements of `value` bytes from disp of region on,
// `cond` bytes apart, and is answered on reply_tag with them packed in one message. A strided put
// of at least am_put_whole_min bytes of elements is one am_put_whole_strided per chunk of the
// origin's staging: like am_put_whole, with its packed elements in pieces of whole elements, which
// the receiver lands `elem` bytes each, data_disp bytes apart.
struct am_request {
    uint8_t op, size, region, silent;  // silent: posted (amo_post), no answer
    int32_t reply_tag;
    uint64_t disp, value, cond;
    uint32_t data_bytes;
    uint8_t data_region, pad;
    uint16_t elem;  // am_put_whole_strided: the element size (at most am_data_max)
    uint64_t data_disp;
};
// The most data a put-with-signal carries in its request; a larger one is a put, a flush, a signal.
constexpr size_t am_data_max = tuning::am_data_max.value;
struct am_message {
    am_request r;
    unsigned char data[am_data_max];
};
enum : uint8_t {
    am_put = 32,
    am_get = 33,
    am_put_whole = 34,
    am_put_strided = 35,
    am_get_strided = 36,
    am_put_whole_strided = 37
};  // beyond rmw_op's codes
// Puts of at least am_put_whole_min bytes are am_put_whole; the data of those and of gets moves in
// messages of at most am_piece_max bytes, am_stages of them staged at the target, and (where the
// origin stages: a GPU heap) in chunks of am_chunk bytes.
constexpr size_t am_put_whole_min = tuning::am_put_whole_min.value;
constexpr size_t am_piece_max = tuning::am_piece_max.value;
constexpr size_t am_stages = 2, am_chunk = 4 * am_piece_max;
constexpr int tag_request = 1;
constexpr int tag_reply_first = 2, tag_replies = 30000;  // reply tags stay below MPI's minimum MPI_TAG_UB
// The pieces of an am_put_whole go on a tag of this range (apart from the replies, which come from
// the other side's range of tags).
constexpr int tag_data_first = tag_reply_first + tag_replies, tag_datas = 2700;
static_assert(tag_data_first + tag_datas <= 32767, "tags beyond MPI's minimum MPI_TAG_UB");
static_assert(am_data_max <= UINT16_MAX, "am_request::elem holds an element of a packed strided put");

// Copies between a heap reached by messages and host memory (transport_mpi_messages.cpp); the
// strided form copies n elements of elem bytes, src_stride bytes apart, to dst_stride bytes apart.
void copy_heap(void* dst, const void* src, size_t bytes);
void copy_heap_strided(void* dst, size_t dst_stride, const void* src, size_t src_stride, size_t elem, size_t n);

class mpi_transport final : public transport {
  public:
    mpi_transport(MPI_Comm world, long max_sleep_us);
    ~mpi_transport() override;

    // ---- RMA ----------------------------------------------------------------------------------

    void put(void* dest, const void* source, size_t bytes, int pe, bool nbi) override;
    void get(void* dest, const void* source, size_t bytes, int pe, bool nbi) override;
    void put_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem, size_t count,
                     int pe) override;
    void get_strided(void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem, size_t count,
                     int pe) override;

    // ---- AMOs ---------------------------------------------------------------------------------

    uint64_t amo(rmw_op op, void* dest, unsigned size, uint64_t value, uint64_t cond, int pe) override;
    void amo_post(rmw_op op, void* dest, unsigned size, uint64_t value, int pe) override;
    bool put_signal(void* dest, const void* source, size_t bytes, uint64_t* sig_addr, uint64_t signal, bool add,
                    int pe) override;
    void post(am_request r, const void* data, int pe);
    // post() with the data_bytes of data written into the message by pack.
    void post_packed(am_request r, const std::function<void(unsigned char*)>& pack, int pe);

    // ---- ordering and progress ----------------------------------------------------------------

    void flush(int pe) override;
    void fence() override;
    void quiet() override;
    void progress() override;
    void start_progress_thread() override;
    void hold_progress_thread(bool held) override;

    // ---- teams and collectives ----------------------------------------------------------------

    void team_split(int parent_slot, int slot, int color, int key) override;
    void team_destroy(int slot) override;
    size_t collective(coll_kind kind, int team, void* dest, const void* source, size_t bytes, int root) override;
    void broadcast_chain(int team, void* dest, const void* source, size_t bytes, int root) override;
    void collect_known(int team, void* dest, const void* source, const size_t* bytes_of) override;
    int collect_rounds(size_t members) const override;
    void exchange_blocks(int team, void* in, const size_t* in_at, const size_t* in_bytes, const void* out,
                         const size_t* out_at, const size_t* out_bytes) override;
    void send_to_member(int team, int to, const void* buf, size_t bytes) override;
    void receive_from_member(int team, int from, void* buf, size_t bytes) override;
    void reduction(int op, int scan, elem_kind type, int team, void* dest, const void* source, size_t nelems) override;
    void barrier(int team, bool completing) override;

  private:
    struct target {
        MPI_Win win;
        MPI_Aint disp;
        uint8_t region;  // a region_kind
    };

    MPI_Win make_window(void* base, size_t bytes);
    am_request request(rmw_op op, void* dest, unsigned size, uint64_t value, uint64_t cond);
    void send_fetching(const am_request& r, uint64_t* answer, int pe, MPI_Request rq[2]);
    static MPI_Datatype blocks_type(size_t count, size_t elem, ptrdiff_t stride);
    void retire_posts();
    void complete_posts();
    char* bounce(const void* source, size_t bytes);
    target locate(const void* addr);
    // The heap reached by messages (transport_mpi_messages.cpp).
    void put_messages(const target& t, const void* source, size_t bytes, int pe, bool nbi);
    void put_whole(const target& t, const void* source, size_t bytes, int pe, bool nbi);
    void get_messages(void* dest, const target& t, size_t bytes, int pe);
    void strided_messages(bool is_put, void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride,
                          size_t elem, size_t count, int pe);
    void serve_put_whole(const am_request& r, int from);
    void serve_get(const am_request& r, int to);
    void serve_get_strided(const am_request& r, int to);
    void put_strided_whole(const target& t, ptrdiff_t dstride, const char* source, ptrdiff_t sstride, size_t elem,
                           size_t count, int pe);
    void put_strided_packed(const target& t, ptrdiff_t dstride, const char* source, ptrdiff_t sstride, size_t elem,
                            size_t count, int pe);
    void get_strided_packed(char* dest, ptrdiff_t dstride, const target& t, ptrdiff_t sstride, size_t elem,
                            size_t count, int pe);
    void wait_serving(std::vector<MPI_Request>& rq, int pe);
    int data_tag();
    char* serve_stage();
    char* origin_stage(int half);
    static bool stage_at_origin() { return heap_on_gpu(); }  // MPI cannot reach GPU memory

    // ---- collectives ---------------------------------------------------------------------------
    // Up to these sizes (a member's bytes; alltoall: a block) the collectives are point-to-point
    // messages (coll_p2p.h: Open MPI 4.1's non-blocking collectives were slower than its blocking
    // ones), and barriers always. Larger ones are MPI's non-blocking collectives.
    // Reductions and scans are our own up to p2p_reduce_max (their messages stay in MPI's counts).
    // Broadcasts above p2p_bcast_max and up to p2p_chain_max go down a chain in eager segments,
    // which beat MPI_Ibcast there; from 512 KiB the chain is slower on most layouts, so the callers
    // ask for the long chain (broadcast_chain) only where it pays (broadcast_on_one_chain in
    // impl/coll/hierarchy.h: a node in the middle, or 3-4 single-PE nodes). The limits and the
    // benchmarks that chose them: docs/guide/tuning.rst.
    static constexpr size_t p2p_chain_max = tuning::p2p_chain_max.value;
    // On 3 members or more, broadcasts below chain_short_max go down the chain as one message:
    // the root sends once a call where the binomial tree has it send to log2 n others, and calls
    // in a row overlap along the chain (Open MPI's own choice for the smallest messages on fewer
    // than 4 ranks). Where 4 or more members are the leaders of two levels, a call's node step
    // beyond its 512-byte inboxes keeps calls in a row from overlapping, so the chain's extra hops
    // count in full: there the chain only below leaders_chain_max. Only up to chain_members_max
    // members: a lone call waits for n - 1 hops where the tree takes log2 n, so larger teams keep
    // the tree. (With more PEs than cores the middle member must be scheduled to pass each message
    // on, and the chain loses.)
    // On 2 members from pair_whole_min to pair_whole_max a broadcast is one message (a
    // rendezvous), steadier than the chain's eager segments at those sizes and faster than
    // MPI_Ibcast; larger ones stay with MPI_Ibcast. Evidence for each limit: docs/guide/tuning.rst.
    static constexpr int chain_members_max = tuning::chain_members_max.value;
    static constexpr size_t chain_short_max = tuning::chain_short_max.value,
                            leaders_chain_max = tuning::leaders_chain_max.value,
                            pair_whole_min = tuning::pair_whole_min.value,
                            pair_whole_max = tuning::pair_whole_max.value;
    // fcollects go as messages up to p2p_coll_max a member and collects up to p2p_collect_max a
    // block (collect_as_messages); above them MPI_Iallgather(v) wins (docs/guide/tuning.rst).
    static constexpr size_t p2p_coll_max = tuning::p2p_coll_max.value, p2p_bcast_max = tuning::p2p_bcast_max.value,
                            p2p_alltoall_max = tuning::p2p_alltoall_max.value,
                            p2p_collect_max = tuning::p2p_collect_max.value,
                            p2p_reduce_max = tuning::p2p_reduce_max.value;

    static bool collect_as_messages(int n, size_t largest);
    static size_t short_chain_limit(int n, bool leaders);
    void broadcast(MPI_Comm c, int n, int rank, void* dest, const void* source, size_t bytes, int root, bool long_chain,
                   bool leaders);
    mpi::p2p_collectives::collected allgatherv(MPI_Comm c, int rank, void* dest, const void* source,
                                               const std::vector<size_t>& lengths);

    // Starts a non-blocking collective (start(&request), one MPI call) under the lock, calls
    // meanwhile (if any), and waits for it like every wait of the library.
    template <class F> void run_collective(const char* what, F&& start, const std::function<void()>& meanwhile = {}) {
        MPI_Request r = MPI_REQUEST_NULL;
        check(locked([&] { return start(&r); }), what);
        if (meanwhile) meanwhile();
        p2p_.wait_all(&r, 1, what);  // serves requests meanwhile (backoff::pause calls progress())
    }

    void help(bool on);

    // f() (one MPI call) with the MPI lock held.
    template <class F> int locked(F&& f) {
        std::lock_guard<mpi::mpi_lock> in_mpi(mpi_lock_);
        return f();
    }

    char* region_base(uint8_t region);
    MPI_Comm comm(int team);
    void strided(bool is_put, void* dest, ptrdiff_t dstride, const void* source, ptrdiff_t sstride, size_t elem,
                 size_t count, int pe);
    bool serve(bool by_thread = false);
    void progress_loop();

    MPI_Comm am_comm_ = MPI_COMM_NULL;
    std::vector<MPI_Comm> comms_;  // by team slot
    int me_ = 0;
    char* heap_lo_ = nullptr;  // my window's memory: my internal region (then my heap, unless by messages)
    size_t heap_bytes_ = 0;
    char* msg_lo_ = nullptr;  // my heap when it is reached by messages (a GPU heap: its whole mapping)
    size_t msg_bytes_ = 0;
    std::unique_ptr<char[]> serve_stage_;    // serve's staging (under mpi_lock_)
    std::unique_ptr<char[]> origin_stage_;   // the origin's staging, where it stages (under origin_stage_mu_)
    std::vector<MPI_Request> origin_rq_[2];  // the sends from each half of it (under origin_stage_mu_)
    std::mutex origin_stage_mu_;
    std::vector<MPI_Request> data_sends_;  // pieces of nbi puts in flight from the caller's source (under mpi_lock_)
    std::atomic<uint32_t> next_data_tag_{0};
    MPI_Win heap_win_ = MPI_WIN_NULL, globals_win_ = MPI_WIN_NULL;
    std::atomic<bool> dirty_{false};  // puts or nbi gets that a quiet has yet to complete
    // Blocking puts of up to bounce_max bytes go out from copies in this ring (see the top of
    // transport_mpi.cpp).
    static constexpr size_t bounce_max = tuning::bounce_max.value, bounce_bytes = tuning::bounce_bytes.value;
    std::unique_ptr<char[]> bounce_ring_{new char[bounce_bytes]};
    size_t bounce_used_ = 0;  // under mpi_lock_

    // Non-fetching atomics in flight (amo_post): a ring of their messages until MPI has sent them,
    // and the PEs they went to since the last complete_posts, all under mpi_lock_; posts_out_: there
    // are such PEs (read without the lock).
    struct posted_amo {
        am_message m;
        MPI_Request rq;
        int pe;
    };
    static constexpr int posts_max = tuning::posts_max.value;
    posted_amo posts_[posts_max];
    int posts_head_ = 0, posts_n_ = 0;
    std::vector<uint8_t> posted_to_;  // by PE
    std::vector<int> posted_pes_;
    std::atomic<bool> posts_out_{false};
    std::mutex completing_;  // one complete_posts at a time

    mpi::mpi_lock mpi_lock_;  // one thread at a time in MPI (see the top of transport_mpi.cpp)
    mpi::p2p_collectives p2p_{mpi_lock_, [this](bool on) { help(on); }};
    std::vector<size_t> collect_largest_ = std::vector<size_t>(team_slots_max, 0);  // by team slot
    am_message inbox_{};
    MPI_Request inbox_req_ = MPI_REQUEST_NULL;
    std::atomic<uint32_t> next_tag_{0};
    std::atomic<bool> stop_{false};
    std::atomic<bool> held_{false};  // hold_progress_thread
    long max_sleep_us_;
    std::thread thread_;
    // help()'s calls on the progress thread: local work under way, and the thread's nap.
    std::atomic<int> helping_{0};
    std::atomic<bool> napping_{false};
    std::mutex nap_mu_;
    std::condition_variable nap_cv_;
};

}  // namespace ishmemi::mpi

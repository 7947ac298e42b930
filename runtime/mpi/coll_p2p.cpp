// The MPI transport's point-to-point collectives (coll_p2p.h says why and the rules they keep).
#include "coll_p2p.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "ishmem/impl/sync.h"
#include "ishmem/impl/teams.h"
#include "ishmem/impl/tuning.h"
#include "mpi_check.h"

namespace ishmemi::mpi {

namespace {

void shape(MPI_Comm c, int* n, int* rank) {
    MPI_Comm_size(c, n);
    MPI_Comm_rank(c, rank);
}

// Memory of a thread's collectives, kept from call to call (no allocation per call); more than
// keep_max bytes is given back after the call that needed it.
struct scratch {
    static constexpr size_t keep_max = tuning::scratch_keep_max.value;
    std::unique_ptr<char[]> p;
    size_t cap = 0;
    char* get(size_t bytes) {
        if (bytes > cap) {
            p.reset(new char[bytes]);
            cap = bytes;
        }
        return p.get();
    }
    // Grows to at least `bytes`, keeping the first `used` bytes.
    char* grow(size_t bytes, size_t used) {
        if (bytes <= cap) return p.get();
        const size_t want = std::max(bytes, cap * 2);
        std::unique_ptr<char[]> q(new char[want]);
        if (used) std::memcpy(q.get(), p.get(), used);
        p = std::move(q);
        cap = want;
        return p.get();
    }
    void trim() {
        if (cap > keep_max) {
            p.reset();
            cap = 0;
        }
    }
};
thread_local scratch work;

}  // namespace

// Polls: every poll is an MPI call, which drives MPI's progress; every serve_every-th poll also
// serves the transport's requests (backoff::pause calls progress(), an MPI call of its own) and
// backs off. A message is then seen within a poll or so of its arrival.
template <class F> void poll_until(F&& done) {
    constexpr unsigned serve_every = 4;
    backoff b{wait_spin_limit, 0};
    for (unsigned polls = 1; !done(); ++polls) {
        if (polls % serve_every == 0)
            b.pause();
        else
            cpu_relax();
    }
}

void p2p_collectives::wait_all(MPI_Request* r, int n, const char* what) {
    poll_until([&] {
        int done = 0;
        check(locked([&] { return MPI_Testall(n, r, &done, MPI_STATUSES_IGNORE); }), what);
        return done != 0;
    });
}

void p2p_collectives::recv(void* buf, size_t bytes, int from, MPI_Comm c, MPI_Request* r) {
    const int nb = as_count(bytes, "a collective's message");
    check(locked([&] { return MPI_Irecv(buf, nb, MPI_BYTE, from, tag, c, r); }), "MPI_Irecv");
}

void p2p_collectives::send(const void* buf, size_t bytes, int to, MPI_Comm c, MPI_Request* r) {
    const int nb = as_count(bytes, "a collective's message");
    check(locked([&] { return MPI_Isend(buf, nb, MPI_BYTE, to, tag, c, r); }), "MPI_Isend");
}

int p2p_collectives::pieces(size_t bytes) {
    return bytes > whole_max && bytes <= pieces_max * piece_bytes
               ? static_cast<int>((bytes + piece_bytes - 1) / piece_bytes)
               : 1;
}

void p2p_collectives::recv_pieces(void* buf, size_t bytes, int from, MPI_Comm c, MPI_Request* r) {
    const int k = pieces(bytes);
    for (int i = 0; i < k; ++i) {
        const size_t at = static_cast<size_t>(i) * piece_bytes;
        recv(static_cast<char*>(buf) + at, k == 1 ? bytes : std::min(piece_bytes, bytes - at), from, c, &r[i]);
    }
}

void p2p_collectives::send_pieces(const void* buf, size_t bytes, int to, MPI_Comm c, MPI_Request* r) {
    const int k = pieces(bytes);
    for (int i = 0; i < k; ++i) {
        const size_t at = static_cast<size_t>(i) * piece_bytes;
        send(static_cast<const char*>(buf) + at, k == 1 ? bytes : std::min(piece_bytes, bytes - at), to, c, &r[i]);
    }
}

void p2p_collectives::send_one(MPI_Comm c, int to, const void* buf, size_t bytes) {
    MPI_Request r[pieces_max];
    send_pieces(buf, bytes, to, c, r);
    wait_all(r, pieces(bytes), "a chain's send");
}

void p2p_collectives::receive_one(MPI_Comm c, int from, void* buf, size_t bytes) {
    MPI_Request r[pieces_max];
    recv_pieces(buf, bytes, from, c, r);
    wait_all(r, pieces(bytes), "a chain's receive");
}

void p2p_collectives::exchange(void* in, size_t in_bytes, const void* out, size_t out_bytes, int peer, MPI_Comm c,
                               const char* what) {
    exchange_ring(in, in_bytes, peer, out, out_bytes, peer, c, what);
}

void p2p_collectives::reduce_local(const void* in, void* inout, int count, MPI_Datatype type, MPI_Op op) {
    check(locked([&] { return MPI_Reduce_local(in, inout, count, type, op); }), "MPI_Reduce_local");
}

void p2p_collectives::barrier(MPI_Comm c) {
    int n = 0, rank = 0;
    shape(c, &n, &rank);
    char none[1];
    const bool pairs = (n & (n - 1)) == 0;
    for (int dist = 1; dist < n; dist <<= 1) {
        const int to = pairs ? rank ^ dist : (rank + dist) % n, from = pairs ? to : (rank - dist + n) % n;
        MPI_Request r[2];
        recv(none, 0, from, c, &r[0]);
        send(none, 0, to, c, &r[1]);
        wait_all(r, 2, "a barrier's messages");
    }
}

void p2p_collectives::broadcast(MPI_Comm c, void* buf, size_t bytes, int root, const void* from,
                                const std::function<void()>& meanwhile) {
    int n = 0, rank = 0;
    shape(c, &n, &rank);
    const int vr = (rank - root + n) % n;  // rank relative to the root
    const int k = pieces(bytes);
    MPI_Request r[32 * pieces_max];
    int mask = 1;
    for (; mask < n; mask <<= 1) {
        if (vr & mask) {
            recv_pieces(buf, bytes, (vr - mask + root) % n, c, r);
            wait_all(r, k, "a broadcast's receive");
            break;
        }
    }
    int sends = 0;
    const void* out = vr == 0 && from ? from : buf;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n) {
            send_pieces(out, bytes, (vr + mask + root) % n, c, r + sends);
            sends += k;
        }
    if (vr == 0 && meanwhile) meanwhile();
    wait_all(r, sends, "a broadcast's sends");
}

void p2p_collectives::broadcast_chain(MPI_Comm c, void* buf, size_t bytes, int root, const void* from,
                                      const std::function<void()>& meanwhile, segmenting cut) {
    int n = 0, rank = 0;
    shape(c, &n, &rank);
    const int vr = (rank - root + n) % n;
    const int prev = (rank - 1 + n) % n, next = (rank + 1) % n;
    const bool first = vr == 0, last = vr == n - 1;
    // Segments of equal length (the last one shorter), none over cut.most bytes.
    const size_t wanted = std::max<size_t>(1, (bytes + cut.most - 1) / cut.most);
    const size_t seg = std::max<size_t>(1, (bytes + wanted - 1) / wanted);
    const size_t nseg = std::max<size_t>(1, (bytes + seg - 1) / seg);
    auto piece = [&](size_t k) { return std::min(seg, bytes - k * seg); };
    std::vector<MPI_Request> in(first ? 0 : nseg, MPI_REQUEST_NULL), out(last ? 0 : nseg, MPI_REQUEST_NULL);
    char* b = static_cast<char*>(buf);
    const size_t window = std::max<size_t>(1, cut.in_flight);
    // Segment k goes to the next member once segment k - window has gone.
    auto send_on = [&](const char* o, size_t k) {
        if (k >= window) wait_all(&out[k - window], 1, "a broadcast's sends");
        send(o + k * seg, piece(k), next, c, &out[k]);
    };
    if (first) {  // (and the only member where n is 1)
        const char* o = static_cast<const char*>(from ? from : buf);
        const size_t now = last ? 0 : std::min(nseg, window);
        for (size_t k = 0; k < now; ++k) send_on(o, k);
        if (meanwhile) meanwhile();
        if (!last)
            for (size_t k = now; k < nseg; ++k) send_on(o, k);
    } else {
        for (size_t k = 0; k < nseg; ++k) recv(b + k * seg, piece(k), prev, c, &in[k]);
        if (last) {
            wait_all(in.data(), static_cast<int>(nseg), "a broadcast's receive");
            return;
        }
        for (size_t k = 0; k < nseg; ++k) {  // each segment on as soon as it is here
            wait_all(&in[k], 1, "a broadcast's receive");
            send_on(b, k);
        }
    }
    if (!last) wait_all(out.data(), static_cast<int>(nseg), "a broadcast's sends");
}

int p2p_collectives::send_told(const void* buf, size_t bytes, uint64_t* told, int to, MPI_Comm c, MPI_Request* r) {
    const int k = pieces(bytes);
    if (k == 1) {
        send(buf, bytes, to, c, r);
        return 1;
    }
    *told = bytes;
    check(locked([&] { return MPI_Isend(told, sizeof *told, MPI_BYTE, to, tag + 1, c, r); }), "MPI_Isend");
    send_pieces(buf, bytes, to, c, r + 1);
    return k + 1;
}

size_t p2p_collectives::probe(int from, MPI_Comm c, MPI_Message* msg) {
    // Any tag: the first message of this call from `from` is the next one it sent on c (MPI keeps
    // one sender's order), and its tag says whether it is the block or the block's length.
    MPI_Status st;
    poll_until([&] {
        int flag = 0;
        check(locked([&] { return MPI_Improbe(from, MPI_ANY_TAG, c, &flag, msg, &st); }), "MPI_Improbe", -1);
        return flag != 0;
    });
    int len = 0;
    MPI_Get_count(&st, MPI_BYTE, &len);
    if (st.MPI_TAG == tag) return static_cast<size_t>(len);
    uint64_t told = 0;
    if (st.MPI_TAG != tag + 1 || len != sizeof told)
        fatal(routine, "a collective's message from member %d has tag %d and %d bytes: not a collect's", from,
              st.MPI_TAG, len);
    check(locked([&] { return MPI_Mrecv(&told, sizeof told, MPI_BYTE, msg, MPI_STATUS_IGNORE); }), "MPI_Mrecv");
    *msg = MPI_MESSAGE_NULL;
    return static_cast<size_t>(told);
}

int p2p_collectives::post_take(MPI_Message* msg, void* into, size_t bytes, int from, MPI_Comm c, MPI_Request* r) {
    if (*msg == MPI_MESSAGE_NULL) {  // its length came first: the pieces follow
        recv_pieces(into, bytes, from, c, r);
        return pieces(bytes);
    }
    if (bytes <= 4096) {
        // Small enough to have come whole with its envelope (Open MPI's eager limits: 4 KiB within
        // a node, 64 KiB over TCP): taking it does not wait.
        check(locked([&] { return MPI_Mrecv(into, static_cast<int>(bytes), MPI_BYTE, msg, MPI_STATUS_IGNORE); }),
              "MPI_Mrecv");
        return 0;
    }
    check(locked([&] { return MPI_Imrecv(into, static_cast<int>(bytes), MPI_BYTE, msg, r); }), "MPI_Imrecv");
    return 1;
}

void p2p_collectives::take(MPI_Message* msg, void* into, size_t bytes, int from, MPI_Comm c, MPI_Request* sent,
                           int ns) {
    MPI_Request r[2 * pieces_max + 1];
    std::copy(sent, sent + ns, r);
    const int nr = ns + post_take(msg, into, bytes, from, c, r + ns);
    wait_all(r, nr, "a collect's exchange");
}

p2p_collectives::collected p2p_collectives::collect_direct(MPI_Comm c, int n, int rank, void* dest, const void* source,
                                                           size_t bytes) {
    char* d = static_cast<char*>(dest);
    const char* mine = static_cast<const char*>(source);
    MPI_Request r[(direct_max - 1) * (pieces_max + 1)];  // (post_take: pieces where a length came first)
    int nr = 0;
    for (int i = 1; i < n; ++i) send(mine, bytes, (rank + i) % n, c, &r[nr++]);  // whole: see direct_max
    // Every length (from the messages), then dest's layout: member 0's block, member 1's, ...
    size_t length[direct_max], start[direct_max], at = 0, largest = 0;
    MPI_Message msg[direct_max];
    for (int m = 0; m < n; ++m) length[m] = m == rank ? bytes : probe(m, c, &msg[m]);
    for (int m = 0; m < n; ++m) {
        start[m] = at;
        at += length[m];
        largest = std::max(largest, length[m]);
    }
    // Each block straight into its place, unless that place holds part of my source, which is being
    // sent: then aside, and into place once the sends are done and my own block is in its place.
    size_t aside_at[direct_max], aside = 0;  // (SIZE_MAX: straight into place)
    for (int m = 0; m < n; ++m) {
        const bool meets = m != rank && overlap_at_all(mine, bytes, d + start[m], length[m]);
        aside_at[m] = meets ? aside : SIZE_MAX;
        if (meets) aside += length[m];
    }
    char* spare = aside ? work.get(aside) : nullptr;
    char* into[direct_max];
    for (int m = 0; m < n; ++m) {
        if (m == rank) continue;
        into[m] = aside_at[m] == SIZE_MAX ? d + start[m] : spare + aside_at[m];
        nr += post_take(&msg[m], into[m], length[m], m, c, r + nr);
    }
    // My block into its place while the messages go, unless that place holds part of my source.
    char* own = d + start[rank];
    const bool own_now = bytes >= copy_early_min && own != mine && !overlap_partly(own, mine, bytes);
    if (own_now) alongside(bytes, [&] { std::memcpy(own, mine, bytes); });
    wait_all(r, nr, "a collect's exchange");
    if (bytes && own != mine && !own_now) std::memmove(own, mine, bytes);
    for (int m = 0; m < n; ++m)
        if (aside_at[m] != SIZE_MAX) std::memcpy(d + start[m], into[m], length[m]);
    work.trim();
    return {largest, at};
}

p2p_collectives::collected p2p_collectives::collect(MPI_Comm c, void* dest, const void* source, size_t bytes) {
    int n = 0, rank = 0;
    shape(c, &n, &rank);
    if (n <= direct_max) return collect_direct(c, n, rank, dest, source, bytes);
    // buf: the blocks of members rank, rank + 1, ... (mod n) in that order, each as its length (8
    // bytes) and its data; ends[j]: where block j ends. Sending the first k blocks is sending a
    // prefix of buf; the k blocks received are the next ones, appended.
    const size_t head = sizeof(uint64_t);
    char* buf = work.grow((head + bytes) * static_cast<size_t>(n), 0);  // a guess: lengths like mine
    const uint64_t mine = bytes;
    std::memcpy(buf, &mine, head);
    if (bytes) std::memcpy(buf + head, source, bytes);
    std::vector<size_t> ends{head + bytes};
    ends.reserve(static_cast<size_t>(n));
    std::vector<char> spill;  // a message that did not fit behind the blocks while buf was being sent
    for (int dist = 1; dist < n; dist <<= 1) {
        const int k = std::min(dist, n - dist);
        const int to = (rank - dist + n) % n, from = (rank + dist) % n;
        MPI_Request sent[pieces_max + 1];
        uint64_t told = 0;
        const int ns = send_told(buf, ends[static_cast<size_t>(k) - 1], &told, to, c, sent);
        // The incoming length is known once the message (or its length) is: probe for it, then
        // receive it behind the blocks if they have room (buf must not move while it is being
        // sent), else aside.
        MPI_Message msg = MPI_MESSAGE_NULL;
        const size_t len = probe(from, c, &msg);
        const size_t at = ends.back();
        const bool fits = at + len <= work.cap;
        char* into = fits ? buf + at : (spill.resize(len), spill.data());
        take(&msg, into, len, from, c, sent, ns);
        if (!fits) {
            buf = work.grow(at + len, at);
            std::memcpy(buf + at, spill.data(), len);
        }
        // Its k blocks: length, data, length, data, ...
        size_t p = at;
        for (int j = 0; j < k; ++j) {
            uint64_t b = 0;
            if (p + head > at + len) fatal(routine, "a collect's message from member %d is cut short", from);
            std::memcpy(&b, buf + p, head);
            p += head + b;
            ends.push_back(p);
        }
        if (p != at + len)
            fatal(routine, "a collect's message from member %d has %zu bytes, its blocks say %zu", from, len, p - at);
    }
    // Member (rank + j) % n's block is block j: its place in dest follows the blocks of members 0.. below it.
    std::vector<size_t> length(static_cast<size_t>(n)), start(static_cast<size_t>(n));
    for (int j = 0; j < n; ++j) {
        const size_t begin = j ? ends[static_cast<size_t>(j) - 1] : 0;
        length[static_cast<size_t>((rank + j) % n)] = ends[static_cast<size_t>(j)] - begin - head;
    }
    size_t at = 0, largest = 0;
    for (int m = 0; m < n; ++m) {
        start[static_cast<size_t>(m)] = at;
        at += length[static_cast<size_t>(m)];
        largest = std::max(largest, length[static_cast<size_t>(m)]);
    }
    for (int j = 0; j < n; ++j) {
        const int m = (rank + j) % n;
        const size_t begin = (j ? ends[static_cast<size_t>(j) - 1] : 0) + head;
        if (length[static_cast<size_t>(m)])
            std::memcpy(static_cast<char*>(dest) + start[static_cast<size_t>(m)], buf + begin,
                        length[static_cast<size_t>(m)]);
    }
    work.trim();
    return {largest, at};
}

void p2p_collectives::fcollect(MPI_Comm c, void* dest, const void* source, size_t bytes) {
    int n = 0, rank = 0;
    shape(c, &n, &rank);
    if (n & (n - 1)) {
        collect(c, dest, source, bytes);
        return;
    }
    // Recursive doubling: at step `mask` each member holds the blocks of the `mask` members of its
    // aligned group and swaps them with its partner's group.
    char* d = static_cast<char*>(dest);
    std::memmove(d + static_cast<size_t>(rank) * bytes, source, bytes);
    for (int mask = 1; mask < n; mask <<= 1) {
        const int peer = rank ^ mask;
        const size_t mine = static_cast<size_t>(rank & ~(mask - 1)) * bytes;
        const size_t theirs = static_cast<size_t>(peer & ~(mask - 1)) * bytes;
        const size_t span = static_cast<size_t>(mask) * bytes;
        exchange(d + theirs, span, d + mine, span, peer, c, "an fcollect's exchange");
    }
}

void p2p_collectives::alltoall(MPI_Comm c, void* dest, const void* source, size_t bytes) {
    int n = 0, rank = 0;
    shape(c, &n, &rank);
    char* d = static_cast<char*>(dest);
    const char* s = static_cast<const char*>(source);
    std::memmove(d + static_cast<size_t>(rank) * bytes, s + static_cast<size_t>(rank) * bytes, bytes);
    thread_local std::vector<size_t> at, len;  // (kept: no allocation a call)
    at.resize(static_cast<size_t>(n));
    len.assign(static_cast<size_t>(n), bytes);
    for (size_t j = 0; j < at.size(); ++j) at[j] = j * bytes;
    alltoallv(c, d, at.data(), len.data(), s, at.data(), len.data());
}

void p2p_collectives::alltoallv(MPI_Comm c, char* in, const size_t* in_at, const size_t* in_bytes, const char* out,
                                const size_t* out_at, const size_t* out_bytes) {
    int n = 0, rank = 0;
    shape(c, &n, &rank);
    size_t posted = 0;
    for (int j = 0; j < n; ++j)
        if (j != rank) posted += static_cast<size_t>(pieces(in_bytes[j]) + pieces(out_bytes[j]));
    std::vector<MPI_Request> r(posted);
    MPI_Request* next = r.data();
    for (int i = 1; i < n; ++i) {  // the same order as alltoall's: from the next members on
        const int from = (rank - i + n) % n, to = (rank + i) % n;
        recv_pieces(in + in_at[from], in_bytes[from], from, c, next);
        next += pieces(in_bytes[from]);
        send_pieces(out + out_at[to], out_bytes[to], to, c, next);
        next += pieces(out_bytes[to]);
    }
    wait_all(r.data(), static_cast<int>(r.size()), "an alltoall's messages");
}

void p2p_collectives::allreduce(MPI_Comm c, MPI_Datatype type, MPI_Op op, void* dest, const void* source, size_t bytes,
                                int count) {
    int n = 0, rank = 0;
    shape(c, &n, &rank);
    const size_t elem = count ? bytes / static_cast<size_t>(count) : 1;
    // The sums build up in dest (source stays as it is unless it is dest); `in` takes the partners'.
    char* acc = static_cast<char*>(dest);
    char* in = work.get(bytes);
    if (dest != source) std::memcpy(acc, source, bytes);
    if ((n & (n - 1)) && bytes > ring_min && static_cast<size_t>(count) >= static_cast<size_t>(n)) {
        ring_allreduce(c, n, rank, type, op, acc, in, elem, static_cast<size_t>(count));
        work.trim();
        return;
    }
    int pof2 = 1;
    while (pof2 * 2 <= n) pof2 *= 2;
    const int rem = n - pof2;
    // Members below 2 * rem pair up: the even one hands its values to the odd one, which joins the
    // power-of-two part as member rank / 2; the others are rank - rem there. vrank -1: folded out.
    int vrank = rank - rem;
    MPI_Request r[pieces_max];
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            send_pieces(acc, bytes, rank + 1, c, r);
            wait_all(r, pieces(bytes), "a reduction's fold");
            vrank = -1;
        } else {
            recv_pieces(in, bytes, rank - 1, c, r);
            wait_all(r, pieces(bytes), "a reduction's fold");
            reduce_local(in, acc, count, type, op);  // acc = (rank - 1's) op (mine)
            vrank = rank / 2;
        }
    }
    auto real = [rem](int v) { return v < rem ? v * 2 + 1 : v + rem; };
    if (vrank >= 0 && ((pof2 == 2 && bytes <= pair_halving_min) || bytes <= halving_min ||
                       static_cast<size_t>(count) < static_cast<size_t>(pof2))) {
        // Recursive doubling: log2(pof2) exchanges of everything (on two members one exchange, as
        // little as halving moves, in one step). Both partners compute every element: lower
        // member's values first on both, for the same bits.
        for (int mask = 1; mask < pof2; mask <<= 1) {
            const int vpeer = vrank ^ mask;
            exchange(in, bytes, acc, bytes, real(vpeer), c, "a reduction's exchange");
            if (vpeer < vrank) {
                reduce_local(in, acc, count, type, op);
            } else {
                reduce_local(acc, in, count, type, op);
                std::memcpy(acc, in, bytes);
            }
        }
    } else if (vrank >= 0) {
        // Rabenseifner: recursive halving leaves this member with its share of the elements
        // reduced over all, recursive doubling then gathers the shares; each step moves half as
        // much as the one before, and each element is reduced on one member only.
        size_t lo = 0, hi = static_cast<size_t>(count);
        size_t los[32], his[32];
        bool kept_lower[32];
        int steps = 0;
        for (int mask = pof2 / 2; mask > 0; mask >>= 1, ++steps) {
            const int vpeer = vrank ^ mask;
            const size_t mid = lo + (hi - lo) / 2;
            const bool lower = (vrank & mask) == 0;  // keeps [lo, mid), sends [mid, hi)
            const size_t klo = lower ? lo : mid, khi = lower ? mid : hi, slo = lower ? mid : lo, shi = lower ? hi : mid;
            exchange(in + klo * elem, (khi - klo) * elem, acc + slo * elem, (shi - slo) * elem, real(vpeer), c,
                     "a reduction's halving");
            // Only I compute these elements at this step: the order of operands cannot differ.
            reduce_local(in + klo * elem, acc + klo * elem, static_cast<int>(khi - klo), type, op);
            los[steps] = lo;
            his[steps] = hi;
            kept_lower[steps] = lower;
            lo = klo;
            hi = khi;
        }
        for (int mask = 1; mask < pof2; mask <<= 1) {
            --steps;
            const int vpeer = vrank ^ mask;
            // The range of the step that split [los, his): mine is [lo, hi), the partner's the rest.
            const size_t plo = kept_lower[steps] ? hi : los[steps], phi = kept_lower[steps] ? his[steps] : lo;
            exchange(acc + plo * elem, (phi - plo) * elem, acc + lo * elem, (hi - lo) * elem, real(vpeer), c,
                     "a reduction's gathering");
            lo = los[steps];
            hi = his[steps];
        }
    }
    if (vrank >= 0 && rank < 2 * rem) {
        send_pieces(acc, bytes, rank - 1, c, r);
        wait_all(r, pieces(bytes), "a reduction's result");
    } else if (vrank < 0) {
        recv_pieces(acc, bytes, rank + 1, c, r);
        wait_all(r, pieces(bytes), "a reduction's result");
    }
    work.trim();
}

void p2p_collectives::ring_allreduce(MPI_Comm c, int n, int rank, MPI_Datatype type, MPI_Op op, char* acc, char* in,
                                     size_t elem, size_t count) {
    // Chunk j: elements [j * count / n, (j + 1) * count / n).
    auto lo = [&](int j) { return static_cast<size_t>(j) * count / static_cast<size_t>(n); };
    auto len = [&](int j) { return lo(j + 1) - lo(j); };
    const int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    // Reduce-scatter: at step s, chunk (rank - s) goes right with the sum of the s + 1 members up to
    // here in it, and chunk (rank - s - 1) comes from the left and takes my values. Each chunk's
    // sum is made once, along the ring, so every member gets the same bits.
    for (int s = 0; s + 1 < n; ++s) {
        const int out = ((rank - s) % n + n) % n, into = ((rank - s - 1) % n + n) % n;
        exchange_ring(in + lo(into) * elem, len(into) * elem, left, acc + lo(out) * elem, len(out) * elem, right, c,
                      "a reduction's ring");
        reduce_local(in + lo(into) * elem, acc + lo(into) * elem, static_cast<int>(len(into)), type, op);
    }
    // Allgather: chunk (rank + 1) is complete here; pass the complete chunks round.
    for (int s = 0; s + 1 < n; ++s) {
        const int out = ((rank + 1 - s) % n + n) % n, into = ((rank - s) % n + n) % n;
        exchange_ring(acc + lo(into) * elem, len(into) * elem, left, acc + lo(out) * elem, len(out) * elem, right, c,
                      "a reduction's ring");
    }
}

void p2p_collectives::exchange_ring(void* in, size_t in_bytes, int from, const void* out, size_t out_bytes, int to,
                                    MPI_Comm c, const char* what) {
    MPI_Request r[2 * pieces_max];
    recv_pieces(in, in_bytes, from, c, r);
    const int k = pieces(in_bytes);
    send_pieces(out, out_bytes, to, c, r + k);
    wait_all(r, k + pieces(out_bytes), what);
}

void p2p_collectives::scan(MPI_Comm c, bool inclusive, MPI_Datatype type, void* dest, const void* source, size_t bytes,
                           int count) {
    int n = 0, rank = 0;
    shape(c, &n, &rank);
    const bool last = rank + 1 == n, in_place = dest == source;
    MPI_Request r[pieces_max];
    auto pass_on = [&](const void* upto) {  // to the next member, and wait: upto may be scratch
        if (!last) send_one(c, rank + 1, upto, bytes);
    };
    if (rank == 0) {     // the sum of members 0..0 is my source, of none zeros
        if (in_place) {  // (dest is the source being sent)
            pass_on(source);
            if (!inclusive) std::memset(dest, 0, bytes);
            return;
        }
        // dest while the sum goes on (MPI's exscan leaves member 0's dest alone; ours zeroes it)
        const int k = last ? 0 : pieces(bytes);
        if (!last) send_pieces(source, bytes, rank + 1, c, r);
        alongside(bytes, [&] {
            if (!inclusive)
                std::memset(dest, 0, bytes);
            else
                std::memcpy(dest, source, bytes);
        });
        wait_all(r, k, "a scan's send");
        return;
    }
    // below: the sum of members 0..rank-1, straight into dest where that is what dest gets and
    // source survives it. The copy of source that the sum needs is made while below is on its way
    // (as Open MPI's scan copies before it receives): on the chain it is off every member's path.
    char* spare = work.get(bytes);
    char* below = !inclusive && !in_place ? static_cast<char*>(dest) : spare;
    recv_pieces(below, bytes, rank - 1, c, r);
    auto copy_source = [&](void* to) { alongside(bytes, [&] { std::memcpy(to, source, bytes); }); };
    if (inclusive && !in_place)
        copy_source(dest);
    else if (!inclusive && !in_place && !last)
        copy_source(spare);
    wait_all(r, pieces(bytes), "a scan's receive");
    if (inclusive) {  // dest = below + source
        reduce_local(below, dest, count, type, MPI_SUM);
        pass_on(dest);
    } else if (!in_place) {  // dest = below; the next member gets below + source
        if (!last) {
            reduce_local(below, spare, count, type, MPI_SUM);
            pass_on(spare);
        }
    } else {  // dest is my source: pass below + source on from it, then make it below
        if (!last) {
            reduce_local(below, dest, count, type, MPI_SUM);
            pass_on(dest);
        }
        std::memcpy(dest, below, bytes);
    }
    work.trim();
}

}  // namespace ishmemi::mpi

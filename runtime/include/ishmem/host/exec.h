// The host backend's execution model: SYCL-shaped queue, event, nd_range, nd_item and group.
//
// "Device" code runs on CPU threads, so that every device-side semantic (_work_group cooperation,
// _on_queue ordering, many concurrent device threads) works and is testable without a GPU.
//
// Limits of this backend:
//  - Only one dimension (D == 1).
//  - A work-group has at most max_work_group_size (1024) work-items; each work-item is a std::thread,
//    so group_barrier works for any group size up to that limit.
//  - Up to max_concurrent_work_items (1024) work-items run at the same time, in whole work-groups. A
//    launch with more work-groups than fit runs them in waves, so a work-group must not wait for a
//    later one (as on a GPU, there is no forward-progress guarantee between work-groups).
//  - A task must not wait for its own queue (queue::wait() from a task throws std::logic_error).
//  - Kernels are invoked through a const reference from many threads at once; a single_task body is
//    invoked once, non-const.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "ishmem/impl/api.h"

struct CUstream_st;  // cudaStream_t is CUstream_st*
struct CUevent_st;   // cudaEvent_t is CUevent_st*

namespace ishmem {

inline constexpr std::size_t max_work_group_size = 1024;
inline constexpr std::size_t max_concurrent_work_items = 1024;

template <int D = 1> class range;
template <int D = 1> class nd_range;
template <int D = 1> class item;
template <int D = 1> class nd_item;
template <int D = 1> class group;
class event;
class queue;

namespace detail {
struct event_state;   // completion flag + exception, shared by events and the queue (exec.cpp)
struct group_state;   // barrier + scratch slot of one running work-group (exec.cpp)
struct access;        // the runtime's factory for items and groups (exec.cpp)
struct stream_order;  // operations that a CUDA stream runs itself (below)

// A queued unit of work, type-erased so that the queue itself is not a template.
struct ISHMEM_API task {
    virtual ~task() = default;
    virtual void run() = 0;
};
template <class F> struct task_of final : task {
    F fn;
    explicit task_of(F&& f) : fn(std::move(f)) {}
    explicit task_of(const F& f) : fn(f) {}
    void run() override { fn(); }
};

// A kernel seen by the launcher: object + trampoline, valid while the task that owns it runs.
struct nd_kernel_ref {
    const void* obj;
    void (*call)(const void* obj, const nd_item<1>& it);
};
struct range_kernel_ref {
    const void* obj;
    void (*call)(const void* obj, const item<1>& it);
};

ISHMEM_API void run_nd_range(std::size_t global, std::size_t local, nd_kernel_ref k);
ISHMEM_API void run_range(std::size_t global, range_kernel_ref k);
ISHMEM_API void check_work_group_size(std::size_t local);  // throws std::invalid_argument
ISHMEM_API void group_barrier_wait(group_state* g);
ISHMEM_API void* group_slot(group_state* g);
[[noreturn]] ISHMEM_API void throw_bad_nd_range(std::size_t global, std::size_t local);

// What a queue over a CUDA stream needs from the CUDA backend (runtime/cuda/stream_gate.cu sets it;
// null in a library without CUDA). A task submitted to such a queue runs on the host in stream
// order: open() makes the stream wait at this point until close(); the task runs once wait_ready()
// says the stream's earlier work is done.
// The event ops serve events over CUDA events: record() gives a pooled event recorded on the stream,
// release() takes it back; the others also take events that the user made.
struct stream_gate_ops {
    void* (*open)(CUstream_st* stream);
    void (*wait_ready)(void* gate);
    void (*close)(void* gate);
    void (*sync)(CUstream_st* stream);
    CUevent_st* (*record)(CUstream_st* stream);
    void (*release)(CUevent_st* ev);
    void (*event_wait)(CUevent_st* ev);
    bool (*event_done)(CUevent_st* ev);
    void (*stream_wait)(CUstream_st* stream, CUevent_st* ev);
};
ISHMEM_API extern const stream_gate_ops* stream_gates;

// For operations that a queue over a CUDA stream runs on the stream itself, with no host task
// (impl/queue.h: copy-engine copies, quiet): they come after the queue's earlier tasks because each
// of those holds the stream at its place until it has run.
struct ISHMEM_API stream_order {
    // Makes the stream wait for deps; false, with nothing done, when one of them is a host task
    // that has not finished (the operation must then run as a task).
    static bool wait_for(const queue& q, const std::vector<event>& deps);
    // An event that completes when the stream reaches this point.
    static event mark(const queue& q);
};
}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Index spaces

template <int D> class range {
    static_assert(D == 1, "the host backend supports one dimension");
    std::size_t n_;

  public:
    range(std::size_t n) : n_(n) {}  // implicit, as in SYCL: parallel_for(100, ...)
    std::size_t size() const { return n_; }
    std::size_t get(int = 0) const { return n_; }
    std::size_t operator[](int) const { return n_; }
    friend bool operator==(const range&, const range&) = default;
};
range(std::size_t)->range<1>;

template <int D> class nd_range {
    static_assert(D == 1, "the host backend supports one dimension");
    range<1> global_, local_;

  public:
    // Throws std::invalid_argument unless local > 0 and global is a multiple of local.
    nd_range(range<1> global, range<1> local) : global_(global), local_(local) {
        if (local.size() == 0 || global.size() % local.size() != 0)
            detail::throw_bad_nd_range(global.size(), local.size());
    }
    range<1> get_global_range() const { return global_; }
    range<1> get_local_range() const { return local_; }
    range<1> get_group_range() const { return global_.size() / local_.size(); }
};
nd_range(range<1>, range<1>)->nd_range<1>;

// ---------------------------------------------------------------------------------------------
// What a kernel sees

template <int D> class item {  // a work-item of a plain range launch
    static_assert(D == 1, "the host backend supports one dimension");
    std::size_t id_, range_;
    item(std::size_t id, std::size_t r) : id_(id), range_(r) {}
    friend struct detail::access;

  public:
    std::size_t get_id(int = 0) const { return id_; }
    std::size_t get_linear_id() const { return id_; }
    range<1> get_range() const { return range_; }
    operator std::size_t() const { return id_; }  // lets kernels take size_t
};

template <int D> class group {  // the work-group of the calling work-item
    static_assert(D == 1, "the host backend supports one dimension");
    std::size_t local_id_, local_range_, group_id_, group_range_;
    detail::group_state* state_;
    group(std::size_t lid, std::size_t lrange, std::size_t gid, std::size_t grange, detail::group_state* s)
        : local_id_(lid), local_range_(lrange), group_id_(gid), group_range_(grange), state_(s) {}
    friend struct detail::access;
    template <int E> friend void group_barrier(const group<E>& g);

  public:
    static constexpr int dimensions = D;
    static constexpr std::size_t local_slot_size = 256;  // bytes of group_local_slot()

    std::size_t get_local_linear_id() const { return local_id_; }
    std::size_t get_local_linear_range() const { return local_range_; }
    std::size_t get_group_linear_id() const { return group_id_; }
    std::size_t get_group_linear_range() const { return group_range_; }
    std::size_t get_local_id(int = 0) const { return local_id_; }
    range<1> get_local_range() const { return local_range_; }
    std::size_t get_group_id(int = 0) const { return group_id_; }
    range<1> get_group_range() const { return group_range_; }
    bool leader() const { return local_id_ == 0; }

    // Scratch shared by the work-items of this group (local_slot_size bytes, 64-byte aligned), for
    // handing a value from one work-item to the others between two group_barrier calls.
    void* group_local_slot() const { return detail::group_slot(state_); }
};

template <int D> class nd_item {  // a work-item of an nd_range launch
    static_assert(D == 1, "the host backend supports one dimension");
    std::size_t global_id_, global_range_;
    group<1> group_;
    nd_item(std::size_t gid, std::size_t grange, group<1> g) : global_id_(gid), global_range_(grange), group_(g) {}
    friend struct detail::access;

  public:
    std::size_t get_global_linear_id() const { return global_id_; }
    std::size_t get_global_id(int = 0) const { return global_id_; }
    std::size_t get_local_linear_id() const { return group_.get_local_linear_id(); }
    std::size_t get_local_id(int = 0) const { return group_.get_local_linear_id(); }
    group<1> get_group() const { return group_; }
    std::size_t get_group_linear_id() const { return group_.get_group_linear_id(); }
    range<1> get_global_range() const { return global_range_; }
    range<1> get_local_range() const { return group_.get_local_range(); }
    range<1> get_group_range() const { return group_.get_group_range(); }
};

// Every work-item of g must call it; returns when all have. Orders memory like a release/acquire pair.
template <int D> void group_barrier(const group<D>& g) { detail::group_barrier_wait(g.state_); }

// The value of x in the work-item with local id `from` (default: the leader), in every work-item.
template <int D, class T> T group_broadcast(const group<D>& g, T x, std::size_t from = 0) {
    static_assert(std::is_trivially_copyable_v<T>, "group_broadcast needs a trivially copyable type");
    static_assert(sizeof(T) <= group<D>::local_slot_size, "group_broadcast: type too large");
    using bytes = std::array<unsigned char, sizeof(T)>;
    auto* slot = static_cast<bytes*>(g.group_local_slot());
    if (g.get_local_linear_id() == from) *slot = std::bit_cast<bytes>(x);
    group_barrier(g);
    T out = std::bit_cast<T>(*slot);
    group_barrier(g);  // nobody may overwrite the slot before everyone has read it
    return out;
}

// ---------------------------------------------------------------------------------------------
// Completion

class ISHMEM_API event {
  public:
    event() = default;  // complete
    // Complete once the CUDA stream work recorded in e (a cudaEvent_t) has run; e stays the
    // caller's and must outlive this event and its copies. A queue over a CUDA stream turns such
    // deps into stream waits. Needs the CUDA backend.
    explicit event(CUevent_st* e);
    // The CUDA event behind this event (an operation that ran on a CUDA stream, or the constructor
    // above), else nullptr. Stays valid while this event or a copy of it exists.
    CUevent_st* cuda_event() const;

    // Block until the task has run; rethrow what it threw (every time wait is called).
    void wait() const;
    void wait_and_throw() const { wait(); }
    bool is_complete() const;
    static void wait(const std::vector<event>& events);  // waits for all, then rethrows the first error

  private:
    friend class queue;
    friend struct detail::stream_order;
    explicit event(std::shared_ptr<detail::event_state> s) : state_(std::move(s)) {}
    std::shared_ptr<detail::event_state> state_;
};

// An in-order queue: tasks run one after the other, in submission order, on the queue's own worker
// thread (started at the first submission), each after its deps have completed. A failing task does
// not stop later ones. Copies are handles to the same queue; the last one to go waits for the work.
// A queue over a CUDA stream runs its tasks the same way, each also in the stream's order; wait()
// then also waits for the stream.
class ISHMEM_API queue {
  public:
    queue();  // a new queue; copies share it
    // A queue whose work runs in the order of a CUDA stream (cudaStream_t; the CUDA backend): each
    // operation starts after the stream's earlier work and before its later work.
    explicit queue(CUstream_st* stream);
    CUstream_st* stream() const;  // the stream given to the constructor (nullptr for a host queue)

    template <class K> event single_task(K&& k) const { return single_task({}, std::forward<K>(k)); }
    template <class K> event single_task(const std::vector<event>& deps, K&& k) const {
        using F = std::decay_t<K>;
        return submit(std::make_unique<detail::task_of<F>>(std::forward<K>(k)), deps);
    }

    // kernel(nd_item<1>): every work-item of a work-group runs concurrently (group_barrier works).
    // Throws std::invalid_argument if the local size exceeds max_work_group_size.
    template <class K> event parallel_for(nd_range<1> r, K&& k) const {
        return parallel_for(r, {}, std::forward<K>(k));
    }
    template <class K> event parallel_for(nd_range<1> r, const std::vector<event>& deps, K&& k) const {
        using F = std::decay_t<K>;
        static_assert(std::is_invocable_v<const F&, nd_item<1>>, "kernel must be callable as k(nd_item<1>)");
        std::size_t global = r.get_global_range().size(), local = r.get_local_range().size();
        detail::check_work_group_size(local);
        return single_task(deps, [kernel = F(std::forward<K>(k)), global, local] {
            detail::run_nd_range(
                global, local, {&kernel, [](const void* p, const nd_item<1>& it) { (*static_cast<const F*>(p))(it); }});
        });
    }

    // kernel(item<1>) or kernel(size_t): work-items may run in any order, not necessarily concurrently.
    template <class K> event parallel_for(range<1> r, K&& k) const { return parallel_for(r, {}, std::forward<K>(k)); }
    template <class K> event parallel_for(range<1> r, const std::vector<event>& deps, K&& k) const {
        using F = std::decay_t<K>;
        static_assert(std::is_invocable_v<const F&, item<1>>, "kernel must be callable as k(item<1>)");
        return single_task(deps, [kernel = F(std::forward<K>(k)), n = r.size()] {
            detail::run_range(n, {&kernel, [](const void* p, const item<1>& it) { (*static_cast<const F*>(p))(it); }});
        });
    }

    // Block until everything submitted before the call has run; rethrow the first exception thrown
    // by a task since the previous wait (in this backend wait and wait_and_throw are the same).
    void wait() const;
    void wait_and_throw() const { wait(); }

    friend bool operator==(const queue& a, const queue& b) { return a.impl_ == b.impl_; }

  private:
    friend struct detail::stream_order;
    struct impl;
    event submit(std::unique_ptr<detail::task> t, const std::vector<event>& deps) const;
    std::shared_ptr<impl> impl_;
};

}  // namespace ishmem

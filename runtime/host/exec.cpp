// The host backend's execution model: events, the in-order queue and its worker thread, and the
// launcher that runs a kernel's work-items on CPU threads.
#include "ishmem/host/exec.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

namespace ishmem {
namespace detail {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// The queue whose task the calling thread is running (worker and kernel threads); lets
// queue::wait detect a task waiting for its own queue, which could never return.
thread_local const void* running_queue = nullptr;

// Thrown out of group_barrier in the other work-items when one work-item of the launch threw, so
// that they do not wait forever for it. Never leaves the launcher.
struct launch_aborted {};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Events

// A host task's completion, or a point of a CUDA stream (gpu set: a CUDA event, which CUDA
// tracks; owned ones go back to the backend's pool).
struct event_state {
    std::atomic<std::uint32_t> done{0};
    std::exception_ptr error;  // written before done is set, read after
    CUevent_st* gpu = nullptr;
    bool owned = false;

    event_state() = default;
    event_state(CUevent_st* e, bool own) : gpu(e), owned(own) {}
    event_state(const event_state&) = delete;
    event_state& operator=(const event_state&) = delete;
    ~event_state() {
        if (owned) stream_gates->release(gpu);
    }

    void complete(std::exception_ptr e) {
        error = std::move(e);
        done.store(1, std::memory_order_release);
        done.notify_all();
    }
    void wait_done() const {
        if (gpu) return stream_gates->event_wait(gpu);
        while (done.load(std::memory_order_acquire) == 0) done.wait(0, std::memory_order_acquire);
    }
    bool is_done() const { return gpu ? stream_gates->event_done(gpu) : done.load(std::memory_order_acquire) != 0; }
};

// ---------------------------------------------------------------------------------------------
// Work-groups

struct alignas(64) group_state {
    std::atomic<std::uint32_t> arrived{0};
    std::atomic<std::uint32_t> generation{0};
    std::uint32_t size = 1;
    const std::atomic<bool>* aborted = nullptr;
    alignas(64) unsigned char slot[group<1>::local_slot_size];

    // A generation-counting barrier: spin briefly (groups are often small and the wait short),
    // then yield, then sleep on the generation word so that many threads on few cores progress.
    void arrive_and_wait() {
        std::uint32_t gen = generation.load(std::memory_order_acquire);
        if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == size) {
            arrived.store(0, std::memory_order_relaxed);
            generation.fetch_add(1, std::memory_order_release);
            generation.notify_all();
            return;
        }
        for (int i = 0; i < 64 && generation.load(std::memory_order_acquire) == gen; ++i) cpu_relax();
        for (int i = 0; i < 4 && generation.load(std::memory_order_acquire) == gen; ++i) sched_yield();
        while (generation.load(std::memory_order_acquire) == gen) {
            if (aborted->load(std::memory_order_acquire)) throw launch_aborted{};
            generation.wait(gen, std::memory_order_acquire);
        }
        if (aborted->load(std::memory_order_acquire)) throw launch_aborted{};
    }

    // After *aborted is set: release every waiter (they see the flag and throw launch_aborted).
    void wake_for_abort() {
        generation.fetch_add(1, std::memory_order_release);
        generation.notify_all();
    }
};

void group_barrier_wait(group_state* g) { g->arrive_and_wait(); }
void* group_slot(group_state* g) { return g->slot; }

struct access {
    static item<1> make_item(std::size_t id, std::size_t n) { return item<1>(id, n); }
    static nd_item<1> make_nd_item(std::size_t global_id, std::size_t global, std::size_t local_id, std::size_t local,
                                   std::size_t group_id, std::size_t groups, group_state* s) {
        return nd_item<1>(global_id, global, group<1>(local_id, local, group_id, groups, s));
    }
};

void throw_bad_nd_range(std::size_t global, std::size_t local) {
    throw std::invalid_argument("ishmem::nd_range: global size " + std::to_string(global) +
                                " is not a positive multiple of local size " + std::to_string(local));
}

void check_work_group_size(std::size_t local) {
    if (local > max_work_group_size)
        throw std::invalid_argument("ishmem::queue::parallel_for: work-group size " + std::to_string(local) +
                                    " exceeds the host backend's limit of " + std::to_string(max_work_group_size));
}

// ---------------------------------------------------------------------------------------------
// Launches

namespace {

// The first exception of a launch; setting it stops the launch.
struct launch_error {
    std::mutex m;
    std::exception_ptr first;
    std::atomic<bool> aborted{false};

    // Returns true for the first failure, which then has to wake the others.
    bool record(std::exception_ptr e) {
        std::lock_guard lock(m);
        if (!first) first = std::move(e);
        return !aborted.exchange(true, std::memory_order_acq_rel);
    }
};

// Runs role(0) on the calling thread and role(1..n-1) on new threads; returns when all are done.
template <class Role, class OnSpawnFailure>
void run_on_threads(std::size_t n, const Role& role, const OnSpawnFailure& on_spawn_failure) {
    const void* queue_of_caller = running_queue;
    std::vector<std::thread> threads;
    threads.reserve(n - 1);
    try {
        for (std::size_t t = 1; t < n; ++t)
            threads.emplace_back([&role, t, queue_of_caller] {
                running_queue = queue_of_caller;
                role(t);
            });
    } catch (...) {
        on_spawn_failure(std::current_exception());
    }
    role(0);
    for (auto& th : threads) th.join();
}

}  // namespace

// Work-group slot s runs groups s, s + slots, s + 2*slots, ...; its `local` threads move from one
// group to the next together (an internal barrier between groups), so each group's work-items run
// concurrently and a slot's barrier and scratch are reused safely.
void run_nd_range(std::size_t global, std::size_t local, nd_kernel_ref k) {
    if (global == 0) return;
    const std::size_t groups = global / local;
    const std::size_t slots = std::min(groups, std::max<std::size_t>(1, max_concurrent_work_items / local));

    launch_error err;
    std::unique_ptr<group_state[]> state(new group_state[slots]);
    for (std::size_t s = 0; s < slots; ++s) {
        state[s].size = static_cast<std::uint32_t>(local);
        state[s].aborted = &err.aborted;
    }
    auto fail = [&](std::exception_ptr e) {
        if (err.record(std::move(e)))
            for (std::size_t s = 0; s < slots; ++s) state[s].wake_for_abort();
    };

    auto role = [&](std::size_t t) {
        const std::size_t s = t / local, l = t % local;
        for (std::size_t g = s; g < groups; g += slots) {
            if (err.aborted.load(std::memory_order_acquire)) return;
            try {
                k.call(k.obj, access::make_nd_item(g * local + l, global, l, local, g, groups, &state[s]));
                if (g + slots < groups) state[s].arrive_and_wait();
            } catch (const launch_aborted&) {
                return;
            } catch (...) {
                fail(std::current_exception());
                return;
            }
        }
    };
    run_on_threads(slots * local, role, fail);
    if (err.first) std::rethrow_exception(err.first);
}

// Contiguous chunks of the range, one per core.
void run_range(std::size_t global, range_kernel_ref k) {
    if (global == 0) return;
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t n = std::min(global, cores);
    launch_error err;
    auto fail = [&](std::exception_ptr e) { err.record(std::move(e)); };
    auto role = [&](std::size_t t) {
        const std::size_t begin = global / n * t + std::min(t, global % n);
        const std::size_t end = begin + global / n + (t < global % n ? 1 : 0);
        try {
            for (std::size_t i = begin; i < end && !err.aborted.load(std::memory_order_relaxed); ++i)
                k.call(k.obj, access::make_item(i, global));
        } catch (...) {
            fail(std::current_exception());
        }
    };
    run_on_threads(n, role, fail);
    if (err.first) std::rethrow_exception(err.first);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// event

void event::wait() const {
    if (!state_) return;
    state_->wait_done();
    if (state_->error) std::rethrow_exception(state_->error);
}

bool event::is_complete() const { return !state_ || state_->is_done(); }

event::event(CUevent_st* e) {
    if (!detail::stream_gates)
        throw std::logic_error(
            "ishmem::event over a CUDA event needs the CUDA backend; this library was built "
            "without CUDA (ISHMEM_ENABLE_CUDA=OFF)");
    if (e) state_ = std::make_shared<detail::event_state>(e, false);
}

CUevent_st* event::cuda_event() const { return state_ ? state_->gpu : nullptr; }

void event::wait(const std::vector<event>& events) {
    for (const auto& e : events)
        if (e.state_) e.state_->wait_done();
    for (const auto& e : events) e.wait();
}

// ---------------------------------------------------------------------------------------------
// queue

namespace {

struct pending_task {
    std::unique_ptr<detail::task> task;
    std::vector<event> deps;
    std::shared_ptr<detail::event_state> done;
};

// What the worker thread needs; owned jointly by the queue handles and the worker, so that the
// worker may outlive the last handle when that handle dies on the worker itself.
struct queue_state {
    std::mutex m;
    std::condition_variable work_cv, idle_cv;
    std::deque<pending_task> tasks;
    std::uint64_t submitted = 0, completed = 0;
    std::exception_ptr unreported_error;  // first task exception since the last queue::wait
    bool stopping = false;
};

void worker_loop(std::shared_ptr<queue_state> st) {
    detail::running_queue = st.get();
    for (;;) {
        pending_task p;
        {
            std::unique_lock lock(st->m);
            st->work_cv.wait(lock, [&] { return st->stopping || !st->tasks.empty(); });
            if (st->tasks.empty()) return;  // stopping and drained
            p = std::move(st->tasks.front());
            st->tasks.pop_front();
        }
        std::exception_ptr error;
        try {
            event::wait(p.deps);
        } catch (...) {
            // A failed dependency has completed; its error belongs to its own event.
        }
        try {
            p.task->run();
        } catch (...) {
            error = std::current_exception();
        }
        // Release what the task captured before anyone who waits on it resumes.
        p.task.reset();
        p.deps.clear();
        p.done->complete(error);
        {
            std::lock_guard lock(st->m);
            ++st->completed;
            if (error && !st->unreported_error) st->unreported_error = error;
        }
        st->idle_cv.notify_all();
    }
}

}  // namespace

struct queue::impl {
    std::shared_ptr<queue_state> st = std::make_shared<queue_state>();
    bool on_stream = false;  // a queue over a CUDA stream
    CUstream_st* stream = nullptr;
    std::thread worker;    // started by the first submission
    pid_t worker_pid = 0;  // a fork()ed child has the handle but not the thread

    ~impl() {
        {
            std::lock_guard lock(st->m);
            st->stopping = true;
        }
        st->work_cv.notify_all();
        if (!worker.joinable()) return;
        if (worker_pid != getpid()) {
            new (&worker) std::thread();  // the thread is in the parent; forget the handle
        } else if (std::this_thread::get_id() == worker.get_id()) {
            worker.detach();  // the last handle died inside a task: the worker drains and exits
        } else {
            worker.join();
        }
    }

    // Called with st->m held.
    void ensure_worker() {
        if (worker.joinable() && worker_pid == getpid()) return;
        if (worker.joinable()) new (&worker) std::thread();  // see ~impl
        worker = std::thread(worker_loop, st);
        worker_pid = getpid();
    }
};

namespace detail {
const stream_gate_ops* stream_gates = nullptr;

bool stream_order::wait_for(const queue& q, const std::vector<event>& deps) {
    if (!q.impl_->on_stream) return false;
    for (const auto& d : deps)
        if (d.state_ && !d.state_->gpu && !d.state_->is_done()) return false;
    for (const auto& d : deps)
        if (d.state_ && d.state_->gpu) stream_gates->stream_wait(q.impl_->stream, d.state_->gpu);
    return true;
}

event stream_order::mark(const queue& q) {
    return event(std::make_shared<event_state>(stream_gates->record(q.impl_->stream), true));
}
}  // namespace detail

namespace {
// A task of a stream queue: runs once the stream has reached its gate, and always lets the stream go on.
struct gated_task final : detail::task {
    std::unique_ptr<detail::task> inner;
    void* gate;
    gated_task(std::unique_ptr<detail::task> t, void* g) : inner(std::move(t)), gate(g) {}
    void run() override {
        struct release {
            void* g;
            ~release() { detail::stream_gates->close(g); }
        } r{gate};
        detail::stream_gates->wait_ready(gate);
        inner->run();
    }
};
}  // namespace

queue::queue() : impl_(std::make_shared<impl>()) {}

queue::queue(CUstream_st* stream) : impl_(std::make_shared<impl>()) {
    if (!detail::stream_gates)
        throw std::logic_error(
            "ishmem::queue over a CUDA stream needs the CUDA backend; this library was built "
            "without CUDA (ISHMEM_ENABLE_CUDA=OFF)");
    impl_->on_stream = true;
    impl_->stream = stream;
}

CUstream_st* queue::stream() const { return impl_->stream; }

event queue::submit(std::unique_ptr<detail::task> t, const std::vector<event>& deps) const {
    auto done = std::make_shared<detail::event_state>();
    if (impl_->on_stream) t = std::make_unique<gated_task>(std::move(t), detail::stream_gates->open(impl_->stream));
    {
        std::lock_guard lock(impl_->st->m);
        impl_->ensure_worker();
        impl_->st->tasks.push_back({std::move(t), deps, done});
        ++impl_->st->submitted;
    }
    impl_->st->work_cv.notify_one();
    return event(std::move(done));
}

void queue::wait() const {
    queue_state& st = *impl_->st;
    if (detail::running_queue == &st)
        throw std::logic_error("ishmem::queue::wait called from a task of the same queue (it would never return)");
    std::exception_ptr error;
    {
        std::unique_lock lock(st.m);
        const std::uint64_t target = st.submitted;
        st.idle_cv.wait(lock, [&] { return st.completed >= target; });
        error = std::exchange(st.unreported_error, nullptr);
    }
    if (impl_->on_stream) detail::stream_gates->sync(impl_->stream);
    if (error) std::rethrow_exception(error);
}

}  // namespace ishmem

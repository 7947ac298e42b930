// The transport's lock around its MPI calls (transport_mpi.cpp says why it has one: one thread at
// a time in MPI). A wait loop takes it for each poll and a collective for each message it posts,
// so it lies on the critical path of every small collective across nodes. A std::mutex costs two
// atomic read-modify-writes a pair (the lock, and an unlock that looks for sleepers); this lock
// takes one exchange and leaves with a plain store, which made small collectives across nodes
// 1-2% faster (docs/guide/tuning.rst). Holders keep it for one MPI call or a
// short sequence, so a thread that finds it taken spins with pauses, then yields (MPI_Comm_split,
// the one blocking call under it, may hold it long).
#pragma once

#include <sched.h>

#include <atomic>

#include "ishmem/impl/sync.h"
#include "ishmem/impl/tuning.h"

namespace ishmemi::mpi {

class mpi_lock {
  public:
    void lock() {
        for (unsigned spins = 0; held_.exchange(true, std::memory_order_acquire);) {
            while (held_.load(std::memory_order_relaxed)) {
                if (spins < spin_max) {
                    ++spins;
                    cpu_relax();
                } else {
                    sched_yield();
                }
            }
        }
    }
    bool try_lock() {
        return !held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire);
    }
    void unlock() { held_.store(false, std::memory_order_release); }

  private:
    static constexpr unsigned spin_max = tuning::mpi_lock_spins.value;
    std::atomic<bool> held_{false};
};

}  // namespace ishmemi::mpi

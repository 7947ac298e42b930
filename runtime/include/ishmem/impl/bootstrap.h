// How PEs find each other before the symmetric heap exists. The runtime picks one implementation at
// init (see "Bootstrap choice" in docs/dev/runtime-contract.md); separate libraries, such as the MPI
// bootstrap, add theirs with register_bootstrap from a static initializer.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <memory>

#include "ishmem/generated/constants.h"
#include "ishmem/impl/api.h"
#include "ishmem/impl/transport.h"

namespace ishmemi {

struct bootstrap {
    virtual int pe() = 0;
    virtual int n_pes() = 0;
    // out receives n_pes() * bytes: PE i's in at out + i * bytes. Collective.
    virtual void allgather(const void* in, void* out, size_t bytes) = 0;
    virtual void barrier() = 0;
    // all_fds[i] receives an fd of PE i's my_fd (all_fds[pe()] == my_fd) for every PE i of this PE's
    // node (node_of[i] == node_of[pe()]), -1 for the others; the caller owns and closes all of them.
    // Collective.
    virtual void exchange_fds(int my_fd, int* all_fds, const int* node_of) = 0;
    // The transport to the PEs of other nodes (impl/transport.h), made once the heaps are mapped;
    // nullptr from a bootstrap that cannot reach other nodes. progress_sleep_us: the longest sleep of
    // its progress thread (ISHMEM_MPI_PROGRESS_SLEEP_US). Collective.
    virtual std::unique_ptr<transport> make_transport(long progress_sleep_us) {
        (void)progress_sleep_us;
        return nullptr;
    }
    // ishmem_global_exit: ends the whole job with status, wherever the other PEs are, from any
    // thread; the launcher (or mpirun) exits with status. This default, for a lone PE, exits the
    // process. Neither it nor an override runs static destructors: other threads may still be busy.
    [[noreturn]] virtual void global_exit(int status) {
        std::fflush(nullptr);
        _exit(status);
    }
    virtual ~bootstrap() = default;
};

using bootstrap_factory = std::unique_ptr<bootstrap> (*)(const ishmemx_attr_t* attr);

// Makes the bootstrap called name ("mpi", ...) available to ishmem_init; a later registration of
// the same name replaces the earlier one.
ISHMEM_API void register_bootstrap(const char* name, bootstrap_factory factory);

}  // namespace ishmemi

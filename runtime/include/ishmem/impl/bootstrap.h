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

namespace ishmemi {

struct bootstrap {
    virtual int pe() = 0;
    virtual int n_pes() = 0;
    // out receives n_pes() * bytes: PE i's in at out + i * bytes. Collective.
    virtual void allgather(const void* in, void* out, size_t bytes) = 0;
    virtual void barrier() = 0;
    // all_fds[i] receives an fd of PE i's my_fd (all_fds[pe()] == my_fd); the caller owns and closes
    // all of them. Collective.
    virtual void exchange_fds(int my_fd, int* all_fds) = 0;
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

// Bootstraps that other libraries register, and the choice made at init.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "bootstrap_select.h"
#include "ishmem/impl/runtime.h"

namespace ishmemi {

namespace {

// A function-local static: registrations run from other libraries' static initializers, whose
// order relative to ours is unknown.
struct registry_t {
    std::mutex lock;
    std::vector<std::pair<std::string, bootstrap_factory>> entries;
};
registry_t& registry() {
    static registry_t r;
    return r;
}

}  // namespace

void register_bootstrap(const char* name, bootstrap_factory factory) {
    registry_t& r = registry();
    std::lock_guard<std::mutex> g(r.lock);
    for (auto& e : r.entries)
        if (e.first == name) {
            e.second = factory;
            return;
        }
    r.entries.emplace_back(name, factory);
}

bootstrap_factory find_bootstrap(const char* name) {
    registry_t& r = registry();
    std::lock_guard<std::mutex> g(r.lock);
    for (auto& e : r.entries)
        if (e.first == name) return e.second;
    return nullptr;
}

std::unique_ptr<bootstrap> select_bootstrap(const ishmemx_attr_t* attr, const char* routine, const char** kind) {
    switch (attr->runtime) {
        case ISHMEMX_RUNTIME_MPI: break;
        case ISHMEMX_RUNTIME_OPENSHMEM: break;  // the built-in launcher plays the OpenSHMEM runtime's part
        case ISHMEMX_RUNTIME_PMI:
            fatal(routine, "attr->runtime ISHMEMX_RUNTIME_PMI is not supported (use ISHMEMX_RUNTIME_MPI)");
        default:
            fatal(routine, "attr->runtime %d is not a runtime type (use ISHMEMX_RUNTIME_MPI)",
                  static_cast<int>(attr->runtime));
    }
    if (auto b = make_launcher_bootstrap()) {
        *kind = "ishmrun";
        return b;
    }
    bootstrap_factory mpi = find_bootstrap("mpi");
    if (mpi && attr->runtime == ISHMEMX_RUNTIME_MPI) {
        *kind = "mpi";
        if (auto b = mpi(attr)) return b;
        fatal(routine, "the MPI bootstrap could not start");
    }
    // Started by mpirun with several ranks but without the MPI bootstrap: every rank would silently be
    // a job of its own.
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
        const char* v = getenv(var);
        if (v && atoi(v) > 1 && !mpi)
            warn(routine, "%s=%s says this process is one of several MPI ranks, but the MPI bootstrap (library "
                          "ishmem_mpi) is not linked: this process runs as a job of one PE; link ishmem::mpi or "
                          "start the program with ishmrun", var, v);
    }
    *kind = "single";
    return make_single_bootstrap();
}

}  // namespace ishmemi

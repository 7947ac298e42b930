// Bootstraps that other libraries register, and the choice made at init.
#include <dlfcn.h>
#include <strings.h>

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

// The variable that says this process is one of several ranks of an MPI launcher, or null.
const char* started_by_mpi_launcher() {
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
        const char* v = getenv(var);
        if (v && atoi(v) > 1) return var;
    }
    return nullptr;
}

// Loads libishmem_mpi, whose static initializer registers the "mpi" bootstrap: from the directory of
// this library (installed), its mpi/ subdirectory (build tree), then the loader's search path.
// RTLD_GLOBAL: Open MPI's own plugins need libmpi's symbols in the global scope.
void load_mpi_library(const char* routine, bool asked) {
    const std::string name = "libishmem_mpi.so." + std::to_string(ISHMEM_MAJOR_VERSION);
    std::vector<std::string> tries;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&load_mpi_library), &info) && info.dli_fname) {
        std::string dir = info.dli_fname;
        dir.erase(dir.find_last_of('/') + 1);
        tries.push_back(dir + name);
        tries.push_back(dir + "mpi/" + name);
    }
    tries.push_back(name);
    std::string errors;
    for (const std::string& path : tries) {
        if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) return;
        errors += std::string("; ") + dlerror();
    }
    if (asked) fatal(routine, "ISHMEM_RUNTIME=mpi, but %s cannot be loaded%s", name.c_str(), errors.c_str());
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
        case ISHMEMX_RUNTIME_MPI:
            break;
        case ISHMEMX_RUNTIME_OPENSHMEM:
            break;  // the built-in launcher plays the OpenSHMEM runtime's part
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
    const char* runtime_var = getenv("ISHMEM_RUNTIME");
    const bool mpi_asked = runtime_var && strcasecmp(runtime_var, "mpi") == 0;
    if (runtime_var && !mpi_asked && strcasecmp(runtime_var, "auto") != 0)
        fatal(routine, "ISHMEM_RUNTIME=%s is not auto or mpi", runtime_var);
    if (!mpi && attr->runtime == ISHMEMX_RUNTIME_MPI && (mpi_asked || started_by_mpi_launcher())) {
        load_mpi_library(routine, mpi_asked);
        mpi = find_bootstrap("mpi");
    }
    if (mpi && attr->runtime == ISHMEMX_RUNTIME_MPI) {
        *kind = "mpi";
        if (auto b = mpi(attr)) return b;
        fatal(routine, "the MPI bootstrap could not start");
    }
    // Started by mpirun with several ranks but without the MPI bootstrap: every rank would silently be
    // a job of its own.
    if (const char* var = started_by_mpi_launcher())
        warn(routine,
             "%s=%s says this process is one of several MPI ranks, but the MPI bootstrap (library "
             "ishmem_mpi) could not be loaded: this process runs as a job of one PE; link ishmem::mpi "
             "or start the program with ishmrun",
             var, getenv(var));
    *kind = "single";
    return make_single_bootstrap();
}

}  // namespace ishmemi

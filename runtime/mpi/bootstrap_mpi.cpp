// The MPI bootstrap: PEs started by mpirun (or any MPI launcher) find each other through MPI.
//
// Library ishmem_mpi registers it with ishmemi::register_bootstrap("mpi", ...) from a static
// initializer, so a program only has to link ishmem::mpi; ishmem_init then uses it whenever the
// process was not started by ishmrun and attr->runtime is ISHMEMX_RUNTIME_MPI (the default).
//
// The world is *(MPI_Comm*)attr->mpi_comm, or MPI_COMM_WORLD. The bootstrap works on a duplicate of
// it, so its collectives never match the program's own messages. MPI is initialized here
// (MPI_THREAD_MULTIPLE) when attr->initialize_runtime is set and nobody did it before; then it is
// also finalized here when ishmem finalizes.
//
// Heap descriptors: PEs started by mpirun are not children of a process of ours, so they cannot
// pass descriptors over a socket that a common parent made. Each PE publishes (pid, fd) and the
// others duplicate the descriptor out of its process: pidfd_open + pidfd_getfd (Linux 5.6), or
// else by opening /proc/<pid>/fd/<fd>. Both need the PEs to be on one node, in one PID namespace,
// and allowed to inspect each other (same user; ptrace access for pidfd_getfd).
#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ishmem/impl/bootstrap.h"
#include "ishmem/impl/runtime.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

namespace ishmemi {

namespace {

const char* const routine = "ishmem_init";

std::string mpi_error_text(int rc) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
    return std::string(text, static_cast<size_t>(len));
}

void check_mpi(int rc, const char* what) {
    if (rc != MPI_SUCCESS) fatal(routine, "MPI bootstrap: %s failed: %s", what, mpi_error_text(rc).c_str());
}

// What a PE publishes about its heap descriptor.
struct fd_record {
    int64_t pid;
    int64_t fd;
    uint64_t dev;
    uint64_t ino;
    char host[64];
};

class mpi_bootstrap final : public bootstrap {
  public:
    explicit mpi_bootstrap(const ishmemx_attr_t* attr) {
        int initialized = 0, finalized = 0;
        MPI_Initialized(&initialized);
        MPI_Finalized(&finalized);
        if (finalized) fatal(routine, "MPI bootstrap: MPI is already finalized");
        if (!initialized) {
            if (!attr->initialize_runtime)
                fatal(routine, "MPI bootstrap: MPI is not initialized and attr->initialize_runtime is false; "
                               "call MPI_Init first or set initialize_runtime");
            int provided = MPI_THREAD_SINGLE;
            check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
            owns_mpi_ = true;
        }
        MPI_Comm world = attr->mpi_comm ? *static_cast<MPI_Comm*>(attr->mpi_comm) : MPI_COMM_WORLD;
        if (world == MPI_COMM_NULL) fatal(routine, "MPI bootstrap: *attr->mpi_comm is MPI_COMM_NULL");
        check_mpi(MPI_Comm_dup(world, &comm_), "MPI_Comm_dup");
        // Errors come back as codes, so that they are reported through ishmem's error path.
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        check_mpi(MPI_Comm_rank(comm_, &pe_), "MPI_Comm_rank");
        check_mpi(MPI_Comm_size(comm_, &n_), "MPI_Comm_size");
    }

    ~mpi_bootstrap() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (finalized) return;  // the program finalized MPI first; nothing left to release
        MPI_Comm_free(&comm_);
        if (owns_mpi_) MPI_Finalize();
    }

    int pe() override { return pe_; }
    int n_pes() override { return n_; }

    void allgather(const void* in, void* out, size_t bytes) override {
        if (bytes == 0) return;
        if (bytes <= static_cast<size_t>(INT_MAX)) {
            check_mpi(MPI_Allgather(in, static_cast<int>(bytes), MPI_BYTE, out, static_cast<int>(bytes), MPI_BYTE,
                                    comm_),
                      "MPI_Allgather");
            return;
        }
        // Counts are ints in MPI: gather larger blobs a slice at a time.
        const size_t slice = size_t(1) << 30;
        std::vector<char> tmp(slice * static_cast<size_t>(n_));
        for (size_t off = 0; off < bytes; off += slice) {
            int len = static_cast<int>(std::min(slice, bytes - off));
            check_mpi(MPI_Allgather(static_cast<const char*>(in) + off, len, MPI_BYTE, tmp.data(), len, MPI_BYTE,
                                    comm_),
                      "MPI_Allgather");
            for (int pe = 0; pe < n_; ++pe)
                memcpy(static_cast<char*>(out) + static_cast<size_t>(pe) * bytes + off,
                       tmp.data() + static_cast<size_t>(pe) * len, static_cast<size_t>(len));
        }
    }

    void barrier() override { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

    void exchange_fds(int my_fd, int* all_fds) override {
        fd_record mine{};
        struct stat st;
        if (fstat(my_fd, &st) != 0) fatal(routine, "MPI bootstrap: fstat of the heap descriptor: %s", strerror(errno));
        mine.pid = getpid();
        mine.fd = my_fd;
        mine.dev = st.st_dev;
        mine.ino = st.st_ino;
        gethostname(mine.host, sizeof mine.host - 1);

        std::vector<fd_record> all(n_);
        allgather(&mine, all.data(), sizeof mine);

        for (int pe = 0; pe < n_; ++pe) {
            if (pe == pe_) {
                all_fds[pe] = my_fd;
                continue;
            }
            const fd_record& r = all[pe];
            if (strncmp(r.host, mine.host, sizeof mine.host) != 0)
                fatal(routine,
                      "MPI bootstrap: PE %d runs on host '%s', this PE on '%s'; the host backend maps every PE's "
                      "heap, so all PEs must run on one node",
                      pe, r.host, mine.host);
            all_fds[pe] = grab_fd(pe, r);
        }
        // Every PE holds its copies before any owner may close the original (the caller does so
        // once it has mapped them).
        barrier();
    }

  private:
    // A descriptor of PE pe's heap (published as r) in this process.
    static int grab_fd(int pe, const fd_record& r) {
        const pid_t pid = static_cast<pid_t>(r.pid);
        const int fd = static_cast<int>(r.fd);
        int err_getfd = 0, err_open = 0;
        int got = -1;

        long pidfd = syscall(SYS_pidfd_open, pid, 0);
        if (pidfd >= 0) {
            got = static_cast<int>(syscall(SYS_pidfd_getfd, static_cast<int>(pidfd), fd, 0));
            if (got < 0) err_getfd = errno;
            close(static_cast<int>(pidfd));
        } else {
            err_getfd = errno;
        }
        if (got >= 0) {
            // pidfd_getfd does not set close-on-exec on the new descriptor.
            fcntl(got, F_SETFD, FD_CLOEXEC);
        } else {
            char path[64];
            snprintf(path, sizeof path, "/proc/%d/fd/%d", static_cast<int>(pid), fd);
            got = open(path, O_RDWR | O_CLOEXEC);
            if (got < 0) err_open = errno;
        }
        if (got < 0)
            fatal(routine,
                  "MPI bootstrap: cannot obtain the symmetric heap of PE %d (pid %d, fd %d): pidfd_getfd: %s; "
                  "open /proc/%d/fd/%d: %s. The PEs must run on one node, in one PID namespace, as one user "
                  "allowed to inspect the others (ptrace access; check kernel.yama.ptrace_scope and the "
                  "container's seccomp profile), or be started with ishmrun",
                  pe, static_cast<int>(pid), fd, strerror(err_getfd), static_cast<int>(pid), fd, strerror(err_open));

        struct stat st;
        if (fstat(got, &st) != 0 || st.st_dev != r.dev || st.st_ino != r.ino)
            fatal(routine,
                  "MPI bootstrap: descriptor %d of pid %d is not PE %d's symmetric heap (is PE %d in another PID "
                  "namespace?)",
                  fd, static_cast<int>(pid), pe, pe);
        return got;
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    int pe_ = 0, n_ = 1;
    bool owns_mpi_ = false;
};

std::unique_ptr<bootstrap> make_mpi_bootstrap(const ishmemx_attr_t* attr) {
    ishmemx_attr_t defaults;
    return std::make_unique<mpi_bootstrap>(attr ? attr : &defaults);
}

// Runs when libishmem_mpi is loaded. The library is linked with --no-as-needed (see
// CMakeLists.txt), so it is loaded even though a program calls nothing in it.
struct registrar {
    registrar() { register_bootstrap("mpi", &make_mpi_bootstrap); }
} const register_mpi;

}  // namespace

}  // namespace ishmemi

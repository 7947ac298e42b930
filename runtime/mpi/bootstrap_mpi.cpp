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
// Heap descriptors: PEs started by mpirun are not children of a process of ours, so they have no
// socket that a common parent made. Each PE listens on a Unix socket of its own in the abstract
// namespace (no file to clean up), named after a job nonce that PE 0 draws, connects to every other
// PE's socket and sends its descriptor there (SCM_RIGHTS), then accepts its peers' connections and
// receives theirs. A connect completes into the listener's backlog without an accept, so all PEs
// can send before any receives. Only the PEs' own user may send (SO_PEERCRED), and every descriptor
// received must be the heap that its PE published (device and inode). This needs neither ptrace
// rights nor one PID namespace, which containers and kernel.yama.ptrace_scope often deny; it needs
// the PEs in one network namespace. Where the sockets fail, the PEs fall back to duplicating the
// descriptor out of its process: pidfd_open + pidfd_getfd (Linux 5.6), or /proc/<pid>/fd/<fd>.
#include <fcntl.h>
#include <mpi.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "ishmem/impl/bootstrap.h"
#include "ishmem/impl/runtime.h"
#include "fd_passing.h"
#include "ishmem/impl/transport.h"
#include "transport_mpi.h"

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
    uint64_t nonce;  // PE 0's names the job's sockets
    char host[64];
};

// The abstract-namespace address of PE pe's socket in the job that PE 0's nonce names.
sockaddr_un socket_address(uint64_t nonce, int pe, socklen_t* len) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    const int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "ishmem-%016llx-%d",
                           static_cast<unsigned long long>(nonce), pe);
    *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
    return a;
}

// Sends (my PE, my descriptor) over a connected socket.
bool send_fd(int sock, int32_t pe, int fd) {
    alignas(cmsghdr) char control[fd_control_bytes(1)] = {};
    iovec iov{&pe, sizeof pe};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    attach_fds(m, control, &fd, 1);
    return sendmsg(sock, &m, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof pe);
}

// Receives (sender's PE, descriptor); the descriptor is -1 when none came.
bool recv_fd(int sock, int32_t* pe, int* fd) {
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    iovec iov{pe, sizeof *pe};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    *fd = -1;
    // A PE's message is queued before its connection is accepted: never wait for one.
    if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT) != static_cast<ssize_t>(sizeof *pe)) return false;
    for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) memcpy(fd, CMSG_DATA(c), sizeof *fd);
    return *fd >= 0;
}

bool same_file(int fd, const fd_record& r) {
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_dev == r.dev && st.st_ino == r.ino;
}

class mpi_bootstrap final : public bootstrap {
  public:
    explicit mpi_bootstrap(const ishmemx_attr_t* attr) {
        int initialized = 0, finalized = 0;
        MPI_Initialized(&initialized);
        MPI_Finalized(&finalized);
        if (finalized) fatal(routine, "MPI bootstrap: MPI is already finalized");
        if (!initialized) {
            if (!attr->initialize_runtime)
                fatal(routine,
                      "MPI bootstrap: MPI is not initialized and attr->initialize_runtime is false; "
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
            check_mpi(
                MPI_Allgather(in, static_cast<int>(bytes), MPI_BYTE, out, static_cast<int>(bytes), MPI_BYTE, comm_),
                "MPI_Allgather");
            return;
        }
        // Counts are ints in MPI: gather larger blobs a slice at a time.
        const size_t slice = size_t(1) << 30;
        std::vector<char> tmp(slice * static_cast<size_t>(n_));
        for (size_t off = 0; off < bytes; off += slice) {
            int len = static_cast<int>(std::min(slice, bytes - off));
            check_mpi(
                MPI_Allgather(static_cast<const char*>(in) + off, len, MPI_BYTE, tmp.data(), len, MPI_BYTE, comm_),
                "MPI_Allgather");
            for (int pe = 0; pe < n_; ++pe)
                memcpy(static_cast<char*>(out) + static_cast<size_t>(pe) * bytes + off,
                       tmp.data() + static_cast<size_t>(pe) * len, static_cast<size_t>(len));
        }
    }

    void barrier() override { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

    // mpirun ends every rank and exits with status. Over MPI_COMM_WORLD, also where the job's world
    // is another communicator: global_exit ends the whole program.
    [[noreturn]] void global_exit(int status) override {
        // Our own line: mpirun's MPI_ABORT text is not reliable (Open MPI 4 may lose it in show_help).
        std::fprintf(stderr, "ishmem: PE %d called ishmem_global_exit(%d); ending the job through MPI_Abort\n", pe(),
                     status);
        std::fflush(nullptr);
        MPI_Abort(MPI_COMM_WORLD, status);
        _exit(status);  // MPI_Abort returned (it should not)
    }

    void exchange_fds(int my_fd, int* all_fds, const int* node_of) override {
        fd_record mine{};
        struct stat st;
        if (fstat(my_fd, &st) != 0) fatal(routine, "MPI bootstrap: fstat of the heap descriptor: %s", strerror(errno));
        mine.pid = getpid();
        mine.fd = my_fd;
        mine.dev = st.st_dev;
        mine.ino = st.st_ino;
        if (getrandom(&mine.nonce, sizeof mine.nonce, 0) != static_cast<ssize_t>(sizeof mine.nonce))
            mine.nonce = (static_cast<uint64_t>(getpid()) << 32) ^ static_cast<uint64_t>(time(nullptr));
        gethostname(mine.host, sizeof mine.host - 1);

        std::vector<fd_record> all(n_);
        allgather(&mine, all.data(), sizeof mine);
        std::vector<int> same_node;  // the PEs whose descriptors this PE takes, itself excluded
        for (int pe = 0; pe < n_; ++pe)
            if (pe != pe_ && node_of[pe] == node_of[pe_]) same_node.push_back(pe);

        std::fill(all_fds, all_fds + n_, -1);
        all_fds[pe_] = my_fd;
        // Every PE agrees on the way: sockets where all of them got every descriptor that way.
        int socket_ok = exchange_over_sockets(all, same_node, all_fds) ? 1 : 0;
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &socket_ok, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
        if (!socket_ok) {
            for (int pe : same_node) {
                if (all_fds[pe] >= 0) close(all_fds[pe]);
                all_fds[pe] = grab_fd(pe, all[pe]);
            }
        }
        // Every PE holds its copies before any owner may close the original (the caller does so
        // once it has mapped them).
        barrier();
    }

    std::unique_ptr<transport> make_transport(long progress_sleep_us) override {
        return make_mpi_transport(comm_, progress_sleep_us);
    }

  private:
    // The socket exchange (see the top of the file). Fills all_fds and returns true when this PE got
    // every peer's descriptor; on false, what it got is in all_fds for the caller to close.
    bool exchange_over_sockets(const std::vector<fd_record>& all, const std::vector<int>& same_node, int* all_fds) {
        const uint64_t nonce = all[0].nonce;
        int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        bool ok = listener >= 0;
        socklen_t len = 0;
        sockaddr_un me = socket_address(nonce, pe_, &len);
        ok = ok && bind(listener, reinterpret_cast<sockaddr*>(&me), len) == 0 && listen(listener, n_) == 0;
        // Everyone listens before anyone connects.
        int all_listen = ok ? 1 : 0;
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &all_listen, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
        ok = all_listen == 1;
        std::vector<int> sent;
        for (size_t i = 0; ok && i < same_node.size(); ++i) {
            const int pe = same_node[i];
            // Non-blocking: a full backlog (more PEs than net.core.somaxconn) fails over to the fallback
            // instead of blocking while every PE connects and none accepts.
            int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
            sockaddr_un to = socket_address(nonce, pe, &len);
            if (s < 0 || connect(s, reinterpret_cast<sockaddr*>(&to), len) != 0 || !send_fd(s, pe_, all_fds[pe_]))
                ok = false;
            if (s >= 0) sent.push_back(s);  // closed after the peers have received
        }
        // Accept a connection from each other PE of this node (this job's, this user's), each bringing
        // its PE's heap.
        // A peer that failed above sends nothing: the receive side then waits for it, so failures
        // are agreed on first (a PE that cannot send says so before anyone accepts).
        int all_sent = ok ? 1 : 0;
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &all_sent, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
        ok = all_sent == 1;
        for (int k = 0; ok && k < static_cast<int>(same_node.size()); ++k) {
            int c = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) {
                ok = false;
                break;
            }
            ucred cred{};
            socklen_t cl = sizeof cred;
            int32_t from = -1;
            int fd = -1;
            const bool trusted = getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0 && cred.uid == getuid();
            if (trusted && recv_fd(c, &from, &fd) && from >= 0 && from < n_ && from != pe_ && all_fds[from] < 0 &&
                same_file(fd, all[from])) {
                all_fds[from] = fd;
            } else {
                if (fd >= 0) close(fd);
                --k;  // not one of ours: keep waiting for the PEs (each sends exactly once)
                if (!trusted || from < 0) {
                    close(c);
                    continue;
                }
                ok = false;  // a PE of the job sent something wrong
            }
            close(c);
        }
        for (int s : sent) close(s);
        if (listener >= 0) close(listener);
        return ok;
    }

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

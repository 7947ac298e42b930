// Client side of ishmrun's rendezvous (see boot_protocol.h).
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "boot_protocol.h"
#include "fd_passing.h"
#include "bootstrap_select.h"
#include "control.h"
#include "ishmem/impl/runtime.h"

namespace ishmemi {

namespace {

const char* const routine = "ishmem_init";

int env_int(const char* name, int lo, int hi) {
    const char* text = getenv(name);
    if (!text) fatal(routine, "ISHMEMI_BOOT_FD is set but %s is not; start the program with ishmrun", name);
    char* end = nullptr;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi)
        fatal(routine, "%s=%s from the launcher is not an integer in [%d, %d]", name, text, lo, hi);
    return static_cast<int>(v);
}

class launcher_bootstrap final : public bootstrap {
  public:
    launcher_bootstrap(int fd, int pe, int n) : fd_(fd), pe_(pe), n_(n) {}
    ~launcher_bootstrap() override { close(fd_); }

    int pe() override { return pe_; }
    int n_pes() override { return n_; }

    void allgather(const void* in, void* out, size_t bytes) override {
        send_header(boot_allgather, bytes, -1);
        const char* src = static_cast<const char*>(in);
        for (size_t off = 0; off < bytes; off += boot_chunk) send_bytes(src + off, std::min(boot_chunk, bytes - off));
        boot_header h;
        recv_message(&h, sizeof h, nullptr, 0);
        expect(h, boot_allgather);
        char* dst = static_cast<char*>(out);
        size_t total = bytes * n_;
        for (size_t off = 0; off < total; off += boot_chunk) recv_bytes(dst + off, std::min(boot_chunk, total - off));
    }

    void barrier() override {
        send_header(boot_barrier, 0, -1);
        boot_header h;
        recv_message(&h, sizeof h, nullptr, 0);
        expect(h, boot_barrier);
    }

    // Every PE of ishmrun's job is on its node (ishmem_init checks that node_of says so).
    void exchange_fds(int my_fd, int* all_fds, const int*) override {
        send_header(boot_exchange_fds, 1, my_fd);
        for (int got = 0; got < n_;) {
            boot_header h;
            int k = recv_message(&h, sizeof h, all_fds + got, n_ - got);
            expect(h, boot_exchange_fds);
            if (k <= 0) fatal(routine, "ishmrun sent no descriptors in an fd exchange");
            got += k;
        }
        // The launcher returns my own fd too; keep the original, which the caller also owns.
        close(all_fds[pe_]);
        all_fds[pe_] = my_fd;
    }

    [[noreturn]] void global_exit(int status) override {
        std::fflush(nullptr);
        notify_launcher_global_exit(status, pe_);
        _exit(status);
    }

  private:
    [[noreturn]] void lost(const char* what, int err) {
        if (err) fatal(routine, "bootstrap %s with ishmrun failed: %s", what, strerror(err));
        fatal(routine, "bootstrap %s: ishmrun closed the connection (it is stopping the job)", what);
    }

    void send_header(uint32_t op, uint64_t count, int fd) {
        boot_header h{boot_magic, op, count};
        iovec iov{&h, sizeof h};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        alignas(cmsghdr) char control[fd_control_bytes(1)];
        if (fd >= 0) attach_fds(msg, control, &fd, 1);
        while (sendmsg(fd_, &msg, MSG_NOSIGNAL) < 0)
            if (errno != EINTR) lost("send", errno);
    }

    void send_bytes(const void* p, size_t n) {
        while (send(fd_, p, n, MSG_NOSIGNAL) < 0)
            if (errno != EINTR) lost("send", errno);
    }

    void recv_bytes(void* p, size_t n) {
        ssize_t r;
        while ((r = recv(fd_, p, n, 0)) < 0)
            if (errno != EINTR) lost("receive", errno);
        if (r == 0) lost("receive", 0);
        if (static_cast<size_t>(r) != n)
            fatal(routine, "bootstrap protocol error: expected %zu bytes from ishmrun, got %zd", n, r);
    }

    // One message into buf (exactly len bytes), and up to max_fds descriptors; returns fds received.
    int recv_message(void* buf, size_t len, int* fds, int max_fds) {
        iovec iov{buf, len};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * boot_fds_per_message)];
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        ssize_t r;
        while ((r = recvmsg(fd_, &msg, MSG_CMSG_CLOEXEC)) < 0)
            if (errno != EINTR) lost("receive", errno);
        if (r == 0) lost("receive", 0);
        if (static_cast<size_t>(r) != len || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
            fatal(routine, "bootstrap protocol error: malformed message from ishmrun");
        int got = 0;
        for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
            int k = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            if (got + k > max_fds) fatal(routine, "bootstrap protocol error: too many descriptors from ishmrun");
            memcpy(fds + got, CMSG_DATA(c), k * sizeof(int));
            got += k;
        }
        return got;
    }

    void expect(const boot_header& h, uint32_t op) {
        if (h.magic != boot_magic || h.op != op)
            fatal(routine, "bootstrap protocol error: ishmrun answered %s with %s", boot_op_name(op),
                  boot_op_name(h.op));
    }

    int fd_, pe_, n_;
};

// A number from the environment, or -1 when the variable is unset or not a number in [0, INT_MAX].
long env_number(const char* name) {
    const char* text = getenv(name);
    if (!text) return -1;
    char* end = nullptr;
    errno = 0;
    long v = strtol(text, &end, 10);
    return errno || end == text || *end || v < 0 || v > INT_MAX ? -1 : v;
}

void on_stop_report(int, siginfo_t* info, void*) { report_on_stop(info->si_value.sival_int); }

}  // namespace

bool notify_launcher_global_exit(int status, int pe) {
    if (!getenv("ISHMEMI_BOOT_FD")) return false;  // not started by ishmrun
    if (pe < 0) pe = static_cast<int>(env_number("ISHMEMI_PE"));
    long launcher = env_number("ISHMEMI_LAUNCHER_PID");
    if (pe < 0 || launcher <= 0) return false;
    sigval value{};
    value.sival_int = boot_global_exit_value(pe, status);
    return sigqueue(static_cast<pid_t>(launcher), boot_global_exit_signal, value) == 0;
}

std::unique_ptr<bootstrap> make_launcher_bootstrap() {
    const char* text = getenv("ISHMEMI_BOOT_FD");
    if (!text) return nullptr;
    int fd = env_int("ISHMEMI_BOOT_FD", 0, INT_MAX);
    struct stat st;
    int type = 0;
    socklen_t len = sizeof type;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
        type != SOCK_SEQPACKET)
        fatal(routine,
              "ISHMEMI_BOOT_FD=%s is not ishmrun's socket (a program started by a PE inherits the "
              "variable; unset it there)",
              text);
    // Programs that this PE starts must not inherit the launcher's connection.
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    int n = env_int("ISHMEMI_NPES", 1, INT_MAX);
    int pe = env_int("ISHMEMI_PE", 0, n - 1);
    // Before the first request: from then on ishmrun may ask for the report when it is told to stop.
    struct sigaction sa {};
    sa.sa_sigaction = on_stop_report;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(boot_stop_report_signal(), &sa, nullptr);
    return std::make_unique<launcher_bootstrap>(fd, pe, n);
}

}  // namespace ishmemi

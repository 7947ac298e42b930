// ishmrun: starts N processes (PEs) of one program on this node and serves their bootstrap requests
// (allgather, barrier, fd exchange; see runtime/src/boot_protocol.h). When a PE fails, it names the
// PE and the cause, stops the others and exits with the PE's status (1 for a signal). When a PE calls
// ishmem_global_exit(status), it names the PE, stops the others and exits with status. Told to stop
// (SIGINT, SIGTERM, SIGHUP), it has a PE print where every PE is before it passes the signal on.
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "boot_protocol.h"
#include "config_vars.h"
#include "fd_passing.h"

#ifndef ISHMEM_VERSION
#define ISHMEM_VERSION "unknown"
#endif

using namespace ishmemi;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr int exit_usage = 2;
constexpr int exit_failed = 1;
constexpr int exit_timeout = 124;
constexpr auto kill_grace = std::chrono::seconds(2);
// Told to stop, ishmrun asks the PEs where they are (boot_stop_report_signal) and waits this long
// for the report before it passes the signal on.
constexpr auto report_grace = std::chrono::milliseconds(1000);
// How long a PE whose connection closed may take to exit before its closing itself is the error.
constexpr auto exit_after_close = std::chrono::seconds(1);

// One "ishmrun: ..." line on stderr, followed by tail.
void vreport(const char* fmt, va_list ap, const char* tail) {
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "ishmrun: %s\n%s", line, tail);
    fflush(stderr);
}

void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap, "");
    va_end(ap);
}

[[noreturn]] void usage_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void usage_error(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap, "Usage: ishmrun -n N [--] program [args...]   (ishmrun --help for more)\n");
    va_end(ap);
    exit(exit_usage);
}

void print_help() {
    printf(
        "Usage: ishmrun -n N [options] [--] program [args...]\n"
        "\n"
        "Starts N processes (PEs 0 .. N-1) of program on this node, all sharing one ishmem job.\n"
        "\n"
        "Options:\n"
        "  -n N, -np N        number of PEs to start (required, N >= 1)\n"
        "  -t S, --timeout S  stop the job after S seconds (exit status 124)\n"
        "  --bind-to B        core (the default): where ishmrun may use at least N cores (or hardware\n"
        "                     threads), each PE runs on a share of them of its own, as mpirun binds\n"
        "                     ranks; none: wherever the scheduler puts it\n"
        "  -h, --help         print this help and exit\n"
        "  -V, --version      print the version and exit\n"
        "  --                 end of options: the next argument is the program\n"
        "\n"
        "Exit status: 0 when every PE exits with 0. When a PE exits with another status, ishmrun names it,\n"
        "stops the other PEs (SIGTERM, then SIGKILL after 2 s) and exits with that status (the first PE's to\n"
        "fail). When a PE is killed by a signal, ishmrun names it and the signal, stops the others and exits\n"
        "with 1.\n"
        "When a PE calls ishmem_global_exit(status), ishmrun names it, stops the other PEs the same way and\n"
        "exits with status.\n"
        "On SIGINT, SIGTERM or SIGHUP, ishmrun first has a PE print where every PE is (the report of\n"
        "ISHMEM_HANG_TIMEOUT), then passes the signal on to the PEs and exits with 128 + the signal.\n"
        "Usage errors exit with 2. Standard input goes to PE 0 when it is not a terminal; the other PEs read\n"
        "/dev/null.\n"
        "\n"
        "Environment set in each PE (internal; do not set them yourself):\n"
        "  ISHMEMI_PE         the PE number\n"
        "  ISHMEMI_NPES       the number of PEs\n"
        "  ISHMEMI_BOOT_FD    the socket to ishmrun used by ishmem_init\n"
        "  ISHMEMI_LAUNCHER_PID  ishmrun's pid, which ishmem_global_exit signals\n"
        "\n"
        "Environment read by the ishmem library in each PE (passed on unchanged):\n");
    for (const config_var& v : config_vars) printf("  %-22s (default %s)\n      %s\n", v.name, v.default_value, v.doc);
}

struct options {
    int n = 0;
    double timeout_s = 0;
    bool bind = true;
    std::vector<char*> argv;  // program and its arguments, null-terminated
};

int parse_count(const char* text) {
    char* end = nullptr;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end) usage_error("-n needs a number of PEs, not '%s'", text);
    if (v < 1) usage_error("-n %ld: the number of PEs must be at least 1", v);
    if (v > 65536) usage_error("-n %ld: at most 65536 PEs", v);
    return static_cast<int>(v);
}

options parse_args(int argc, char** argv) {
    options o;
    int i = 1;
    for (; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](const char* opt) -> const char* {
            if (i + 1 >= argc) usage_error("%s needs a value", opt);
            return argv[++i];
        };
        if (a == "--") {
            ++i;
            break;
        } else if (a == "-h" || a == "--help") {
            print_help();
            exit(0);
        } else if (a == "-V" || a == "--version") {
            printf("ishmrun (ishmem) %s\n", ISHMEM_VERSION);
            exit(0);
        } else if (a == "-n" || a == "-np" || a == "--np") {
            o.n = parse_count(value(a.c_str()));
        } else if (a.rfind("-n", 0) == 0 && a.size() > 2 && a[2] >= '0' && a[2] <= '9') {
            o.n = parse_count(a.c_str() + 2);
        } else if (a == "-t" || a == "--timeout") {
            const char* t = value(a.c_str());
            char* end = nullptr;
            o.timeout_s = strtod(t, &end);
            if (end == t || *end || o.timeout_s <= 0)
                usage_error("%s needs a positive number of seconds, not '%s'", a.c_str(), t);
        } else if (a == "--bind-to") {
            const std::string b = value(a.c_str());
            if (b != "core" && b != "none") usage_error("--bind-to takes core or none, not '%s'", b.c_str());
            o.bind = b == "core";
        } else if (a.size() > 1 && a[0] == '-') {
            usage_error("unknown option '%s'", a.c_str());
        } else {
            break;
        }
    }
    if (o.n == 0) usage_error("missing -n N (the number of PEs)");
    if (i >= argc) usage_error("missing the program to run");
    for (; i < argc; ++i) o.argv.push_back(argv[i]);
    o.argv.push_back(nullptr);
    return o;
}

bool is_executable_file(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// The path execv needs: program as given when it has a slash, else its first match on PATH.
std::string resolve_program(const char* program) {
    if (strchr(program, '/')) {
        struct stat st;
        if (stat(program, &st) != 0) usage_error("program '%s' not found: %s", program, strerror(errno));
        if (!S_ISREG(st.st_mode) || access(program, X_OK) != 0)
            usage_error("program '%s' is not an executable file", program);
        return program;
    }
    const char* path = getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        std::string dir = dirs.substr(start, end - start);
        std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
        if (is_executable_file(candidate)) return candidate;
        start = end + 1;
    }
    usage_error("program '%s' not found in PATH", program);
}

// ---- binding --------------------------------------------------------------------------------

// The first number of a sysfs topology file of cpu, or fallback where there is none.
long topology_number(int cpu, const char* file, long fallback) {
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
    FILE* f = fopen(path, "r");
    if (!f) return fallback;
    long v = fallback;
    if (fscanf(f, "%ld", &v) != 1) v = fallback;
    fclose(f);
    return v;
}

// Each PE's share of the CPUs that ishmrun may use, as mpirun's binding to cores: whole cores where
// there are at least n, else single hardware threads where there are at least n, else none (empty).
// PEs that wait for each other spin: two that the scheduler puts on one core (as it does while other
// work runs on the machine) wait a time slice for each other at every exchange.
std::vector<cpu_set_t> bindings(int n) {
    cpu_set_t allowed;
    if (n < 2 || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return {};
    struct cpu {
        long package, core;  // core: the first hardware thread of its core
        int id;
    };
    std::vector<cpu> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed))
            cpus.push_back(
                {topology_number(c, "physical_package_id", 0), topology_number(c, "thread_siblings_list", c), c});
    std::sort(cpus.begin(), cpus.end(), [](const cpu& a, const cpu& b) {
        return std::tie(a.package, a.core, a.id) < std::tie(b.package, b.core, b.id);
    });
    std::vector<std::vector<int>> cores;
    for (size_t i = 0; i < cpus.size(); ++i) {
        if (i == 0 || cpus[i].package != cpus[i - 1].package || cpus[i].core != cpus[i - 1].core) cores.emplace_back();
        cores.back().push_back(cpus[i].id);
    }
    if (cores.size() < static_cast<size_t>(n)) {
        if (cpus.size() < static_cast<size_t>(n)) return {};
        cores.assign(cpus.size(), {});
        for (size_t i = 0; i < cpus.size(); ++i) cores[i] = {cpus[i].id};
    }
    const size_t k = cores.size();
    std::vector<cpu_set_t> out(static_cast<size_t>(n));
    for (size_t pe = 0; pe < out.size(); ++pe) {
        CPU_ZERO(&out[pe]);
        for (size_t c = pe * k / out.size(); c < (pe + 1) * k / out.size(); ++c)
            for (int id : cores[c]) CPU_SET(id, &out[pe]);
    }
    return out;
}

// ---- one PE: its process, its socket, and the request it has outstanding ---------------------

struct pe_slot {
    pid_t pid = -1;
    int sock = -1;                  // -1 once closed
    bool running = true;            // not reaped yet
    bool connected = false;         // made a request: its handler of boot_stop_report_signal is installed
    clock_type::time_point closed;  // when the socket closed
    // outstanding request
    bool requested = false;  // header received
    bool complete = false;   // and all of its data / fds
    uint32_t op = 0;
    uint64_t count = 0;
    std::vector<char> data;
    size_t got = 0;
    int fd = -1;  // exchange_fds: the PE's heap
};

class job {
  public:
    job(const options& o, std::string path) : opt_(o), path_(std::move(path)), pes_(o.n) {}

    int run() {
        setup_signals();
        raise_fd_limit();
        spawn_all();
        if (opt_.timeout_s > 0)
            timeout_at_ = clock_type::now() + std::chrono::milliseconds(static_cast<long>(opt_.timeout_s * 1000));
        loop();
        return exit_code_;
    }

  private:
    // ---- process management ----------------------------------------------------------------

    void setup_signals() {
        sigemptyset(&handled_);
        for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, boot_global_exit_signal}) sigaddset(&handled_, s);
        sigprocmask(SIG_BLOCK, &handled_, &saved_mask_);
        sigfd_ = signalfd(-1, &handled_, SFD_CLOEXEC | SFD_NONBLOCK);
        if (sigfd_ < 0) {
            say("signalfd failed: %s", strerror(errno));
            exit(exit_failed);
        }
        signal(SIGPIPE, SIG_IGN);
    }

    // The launcher holds a socket per PE and, during an fd exchange, every PE's heap fd.
    void raise_fd_limit() {
        getrlimit(RLIMIT_NOFILE, &saved_nofile_);
        rlimit rl = saved_nofile_;
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }

    void spawn_all() {
        stdin_is_tty_ = isatty(STDIN_FILENO);
        if (opt_.bind) binding_ = bindings(opt_.n);
        for (int pe = 0; pe < opt_.n && !stopping_; ++pe) spawn(pe);
    }

    void spawn(int pe) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
            say("cannot create the socket for PE %d: %s", pe, strerror(errno));
            fail_and_stop();
            return;
        }
        pid_t launcher = getpid();
        pid_t pid = fork();
        if (pid < 0) {
            say("cannot start PE %d: fork failed: %s", pe, strerror(errno));
            close(sv[0]);
            close(sv[1]);
            fail_and_stop();
            return;
        }
        if (pid == 0) exec_child(pe, sv[1], launcher);
        // Both sides set the group, so it is right whichever runs first.
        if (pgid_ == 0) pgid_ = pid;
        setpgid(pid, pgid_);
        close(sv[1]);
        pes_[pe].pid = pid;
        pes_[pe].sock = sv[0];
    }

    [[noreturn]] void exec_child(int pe, int sock, pid_t launcher) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != launcher) _exit(exit_failed);  // the launcher died before prctl
        setpgid(0, pgid_);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, &saved_mask_, nullptr);
        setrlimit(RLIMIT_NOFILE, &saved_nofile_);
        if (pe != 0 || stdin_is_tty_) {
            int null = open("/dev/null", O_RDONLY);
            if (null >= 0 && null != STDIN_FILENO) {
                dup2(null, STDIN_FILENO);
                close(null);
            }
        }
        fcntl(sock, F_SETFD, 0);  // the one descriptor of ishmrun's that the PE keeps
        setenv("ISHMEMI_PE", std::to_string(pe).c_str(), 1);
        setenv("ISHMEMI_NPES", std::to_string(opt_.n).c_str(), 1);
        setenv("ISHMEMI_BOOT_FD", std::to_string(sock).c_str(), 1);
        setenv("ISHMEMI_LAUNCHER_PID", std::to_string(launcher).c_str(), 1);
        if (!binding_.empty()) sched_setaffinity(0, sizeof(cpu_set_t), &binding_[static_cast<size_t>(pe)]);
        execv(path_.c_str(), opt_.argv.data());
        fprintf(stderr, "ishmrun: PE %d: cannot execute '%s': %s\n", pe, path_.c_str(), strerror(errno));
        _exit(127);
    }

    void signal_job(int sig) {
        if (pgid_ > 0) kill(-pgid_, sig);  // also reaches processes that the PEs started
        for (pe_slot& p : pes_)
            if (p.running && p.pid > 0 && getpgid(p.pid) != pgid_) kill(p.pid, sig);
    }

    void fail_and_stop(int code = exit_failed) {
        if (stopping_) return;
        stopping_ = true;
        exit_code_ = code;
        signal_job(SIGTERM);
        kill_at_ = clock_type::now() + kill_grace;
        for (pe_slot& p : pes_) drop_request(p), close_sock(p);
    }

    void reap() {
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            int pe = pe_of(pid);
            if (pe < 0) continue;
            pes_[pe].running = false;
            --running_;
            // A PE that exits with 0 is fine unless others still wait for it (check_deadlines).
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
            if (stopping_) continue;  // the first failure has been named; the rest follow from it
            if (WIFEXITED(status)) {
                say("PE %d (pid %d) exited with status %d", pe, pid, WEXITSTATUS(status));
                fail_and_stop(WEXITSTATUS(status));  // as mpirun: the first nonzero status (77: skipped)
                continue;
            }
            if (WIFSIGNALED(status))
                say("PE %d (pid %d) killed by signal %d (%s)%s", pe, pid, WTERMSIG(status), strsignal(WTERMSIG(status)),
                    WCOREDUMP(status) ? ", core dumped" : "");
            fail_and_stop();
        }
    }

    int pe_of(pid_t pid) const {
        for (int pe = 0; pe < opt_.n; ++pe)
            if (pes_[pe].pid == pid) return pe;
        return -1;
    }

    void on_signals() {
        signalfd_siginfo si;
        while (read(sigfd_, &si, sizeof si) == sizeof si) {
            int sig = static_cast<int>(si.ssi_signo);
            if (sig == SIGCHLD) continue;  // reaped below
            if (sig == boot_global_exit_signal && si.ssi_code == SI_QUEUE) {
                on_global_exit(si.ssi_int, static_cast<pid_t>(si.ssi_pid));
                continue;
            }
            if (stopping_) {  // a second signal, or one while stopping: on to the PEs at once
                forward_ = 0;
                signal_job(sig);
                continue;
            }
            stopping_ = true;
            exit_code_ = 128 + sig;
            // First the report of where every PE is, then the signal (check_deadlines).
            if (ask_for_report(sig)) {
                say("received signal %d (%s); asking the PEs where they are, then passing it on", sig, strsignal(sig));
                forward_ = sig;
                forward_at_ = clock_type::now() + report_grace;
                kill_at_ = forward_at_ + kill_grace;
            } else {
                say("received signal %d (%s); passing it on to the PEs", sig, strsignal(sig));
                signal_job(sig);
                kill_at_ = clock_type::now() + kill_grace;
                for (pe_slot& p : pes_) drop_request(p), close_sock(p);
            }
        }
        reap();
    }

    // Queues the report request to every running PE that has connected; false when there is none.
    bool ask_for_report(int sig) {
        bool asked = false;
        sigval value{};
        value.sival_int = sig;
        for (pe_slot& p : pes_)
            if (p.running && p.connected && p.pid > 0)
                asked = sigqueue(p.pid, boot_stop_report_signal(), value) == 0 || asked;
        return asked;
    }

    // A PE called ishmem_global_exit (boot_protocol.h): not a failure, the end of the job with status.
    void on_global_exit(int value, pid_t sender) {
        const int pe = boot_global_exit_pe(value), status = boot_global_exit_status(value);
        if (value < 0 || pe >= opt_.n) {
            say("ignoring a malformed global-exit signal from pid %d", static_cast<int>(sender));
            return;
        }
        if (stopping_) return;  // the job already ends; its first cause has been named
        say("PE %d (pid %d) called ishmem_global_exit(%d); stopping the job", pe, static_cast<int>(sender), status);
        fail_and_stop(status);
    }

    // ---- bootstrap service ------------------------------------------------------------------

    void close_sock(pe_slot& p) {
        if (p.sock >= 0) close(p.sock);
        p.sock = -1;
    }

    void drop_request(pe_slot& p) {
        if (p.fd >= 0) close(p.fd);
        p.fd = -1;
        p.requested = p.complete = false;
        p.data.clear();
        p.data.shrink_to_fit();
        p.got = 0;
    }

    // A PE is needed when another one waits in a request that it has not made.
    bool needed(int pe) const {
        if (pes_[pe].requested) return false;
        for (const pe_slot& p : pes_)
            if (p.requested) return true;
        return false;
    }

    std::string waiting_text(int gone) const {
        for (int pe = 0; pe < opt_.n; ++pe)
            if (pe != gone && pes_[pe].requested)
                return "PE " + std::to_string(pe) + " waits for it in a bootstrap " + boot_op_name(pes_[pe].op) +
                       " (from ishmem_init or another collective call)";
        return "other PEs wait for it";
    }

    void protocol_error(int pe, const char* what) {
        say("PE %d (pid %d): bootstrap protocol error: %s", pe, pes_[pe].pid, what);
        fail_and_stop();
    }

    void on_readable(int pe) {
        pe_slot& p = pes_[pe];
        iovec iov;
        boot_header h;
        if (!p.requested) {
            iov = {&h, sizeof h};
        } else if (!p.complete && p.op == boot_allgather) {
            iov = {p.data.data() + p.got, std::min(boot_chunk, p.data.size() - p.got)};
        } else {
            iov = {&h, sizeof h};  // a message while its request is complete: a protocol error below
        }
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        ssize_t r = recvmsg(p.sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
        int fds[4], nfds = 0;
        for (cmsghdr* c = CMSG_FIRSTHDR(&msg); r > 0 && c; c = CMSG_NXTHDR(&msg, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int k = std::min(static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int)), 4 - nfds);
                memcpy(fds + nfds, CMSG_DATA(c), k * sizeof(int));
                nfds += k;
            }
        if (r <= 0) {  // closed (the PE exited or finalized) or broken
            close_sock(p);
            p.closed = clock_type::now();
            if (p.requested && !p.complete) protocol_error(pe, "connection closed in the middle of a request");
            return;
        }
        if (p.requested && p.complete) {
            for (int i = 0; i < nfds; ++i) close(fds[i]);
            return protocol_error(pe, "a second request before the first one was answered");
        }
        if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
            for (int i = 0; i < nfds; ++i) close(fds[i]);
            return protocol_error(pe, "message too long");
        }
        if (!p.requested) {
            if (static_cast<size_t>(r) != sizeof h || h.magic != boot_magic) {
                for (int i = 0; i < nfds; ++i) close(fds[i]);
                return protocol_error(pe, "malformed request header");
            }
            p.requested = true;
            p.connected = true;
            p.op = h.op;
            p.count = h.count;
            if (h.op == boot_exchange_fds) {
                if (nfds != 1) {
                    for (int i = 0; i < nfds; ++i) close(fds[i]);
                    return protocol_error(pe, "fd exchange without exactly one descriptor");
                }
                p.fd = fds[0];
                p.complete = true;
            } else if (h.op == boot_barrier) {
                p.complete = true;
            } else if (h.op == boot_allgather) {
                if (h.count > (size_t{1} << 30)) return protocol_error(pe, "allgather of more than 1 GiB per PE");
                p.data.resize(h.count);
                p.complete = h.count == 0;
            } else {
                return protocol_error(pe, "unknown request");
            }
            if (nfds && h.op != boot_exchange_fds) {
                for (int i = 0; i < nfds; ++i) close(fds[i]);
                return protocol_error(pe, "unexpected descriptors");
            }
        } else {  // allgather data
            if (static_cast<size_t>(r) != iov.iov_len) return protocol_error(pe, "allgather data of the wrong length");
            p.got += r;
            p.complete = p.got == p.data.size();
        }
        if (p.complete) on_complete(pe);
    }

    static std::string request_text(const pe_slot& p) {
        std::string s = boot_op_name(p.op);
        if (p.op == boot_allgather) s += " of " + std::to_string(p.count) + " bytes";
        return s;
    }

    // Checks the new request against the others; answers when every PE has made it.
    void on_complete(int pe) {
        const pe_slot& me = pes_[pe];
        for (int other = 0; other < opt_.n; ++other) {
            const pe_slot& o = pes_[other];
            if (other == pe || !o.complete) continue;
            if (o.op != me.op || (me.op == boot_allgather && o.count != me.count)) {
                say("PEs disagree on a collective: PE %d called bootstrap %s while PE %d called %s", other,
                    request_text(o).c_str(), pe, request_text(me).c_str());
                return fail_and_stop();
            }
            break;  // all complete ones agree with each other already
        }
        for (const pe_slot& p : pes_)
            if (!p.complete) return;
        answer();
    }

    bool send_all(int pe, const void* buf, size_t len, const int* fds, int nfds) {
        iovec iov{const_cast<void*>(buf), len};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        std::vector<cmsghdr> control;  // cmsghdr elements: aligned as the header must be
        if (nfds) {
            control.resize((ishmemi::fd_control_bytes(nfds) + sizeof(cmsghdr) - 1) / sizeof(cmsghdr));
            ishmemi::attach_fds(msg, control.data(), fds, nfds);
        }
        while (sendmsg(pes_[pe].sock, &msg, MSG_NOSIGNAL) < 0) {
            if (errno == EINTR) continue;
            // The PE is gone; its exit status tells why.
            close_sock(pes_[pe]);
            pes_[pe].closed = clock_type::now();
            return false;
        }
        return true;
    }

    void answer() {
        const uint32_t op = pes_[0].op;
        const int n = opt_.n;
        if (op == boot_barrier) {
            boot_header h{boot_magic, boot_barrier, 0};
            for (int pe = 0; pe < n; ++pe) send_all(pe, &h, sizeof h, nullptr, 0);
        } else if (op == boot_allgather) {
            const size_t bytes = pes_[0].count;
            std::vector<char> all(bytes * n);
            for (int pe = 0; pe < n; ++pe)
                if (bytes) memcpy(all.data() + pe * bytes, pes_[pe].data.data(), bytes);
            boot_header h{boot_magic, boot_allgather, bytes};
            for (int pe = 0; pe < n; ++pe) {
                if (!send_all(pe, &h, sizeof h, nullptr, 0)) continue;
                for (size_t off = 0; off < all.size(); off += boot_chunk)
                    if (!send_all(pe, all.data() + off, std::min(boot_chunk, all.size() - off), nullptr, 0)) break;
            }
        } else if (op == boot_exchange_fds) {
            std::vector<int> fds(n);
            for (int pe = 0; pe < n; ++pe) fds[pe] = pes_[pe].fd;
            for (int pe = 0; pe < n; ++pe)
                for (int first = 0; first < n; first += boot_fds_per_message) {
                    int k = std::min(boot_fds_per_message, n - first);
                    boot_header h{boot_magic, boot_exchange_fds, static_cast<uint64_t>(k)};
                    if (!send_all(pe, &h, sizeof h, fds.data() + first, k)) break;
                }
        }
        for (pe_slot& p : pes_) drop_request(p);
    }

    // ---- the loop ---------------------------------------------------------------------------

    void loop() {
        running_ = 0;
        for (const pe_slot& p : pes_)
            if (p.pid > 0) ++running_;
        std::vector<pollfd> fds;
        std::vector<int> owner;
        while (running_ > 0) {
            fds.clear();
            owner.clear();
            fds.push_back({sigfd_, POLLIN, 0});
            owner.push_back(-1);
            for (int pe = 0; pe < opt_.n; ++pe)
                if (pes_[pe].sock >= 0) {
                    fds.push_back({pes_[pe].sock, POLLIN, 0});
                    owner.push_back(pe);
                }
            int rc = poll(fds.data(), fds.size(), next_timeout_ms());
            if (rc < 0 && errno != EINTR) {
                say("poll failed: %s", strerror(errno));
                fail_and_stop();
            }
            // Signals first, whether poll reported them or not: a PE queues its global-exit signal
            // before its connection closes, and that closing is then the end of the job, not a failure.
            on_signals();
            for (size_t i = 1; rc > 0 && i < fds.size(); ++i)
                if (fds[i].revents && !stopping_ && pes_[owner[i]].sock >= 0) on_readable(owner[i]);
            check_deadlines();
        }
        close(sigfd_);
    }

    int next_timeout_ms() const {
        auto now = clock_type::now();
        auto soonest = now + std::chrono::hours(1);
        if (stopping_ && !killed_) soonest = std::min(soonest, kill_at_);
        if (forward_) soonest = std::min(soonest, forward_at_);
        if (timeout_at_ && !stopping_) soonest = std::min(soonest, *timeout_at_);
        for (int pe = 0; pe < opt_.n && !stopping_; ++pe)
            if (pes_[pe].sock < 0 && pes_[pe].running && needed(pe))
                soonest = std::min(soonest, pes_[pe].closed + exit_after_close);
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(soonest - now).count();
        return static_cast<int>(std::max<long long>(0, std::min<long long>(ms + 1, INT_MAX)));
    }

    void check_deadlines() {
        auto now = clock_type::now();
        if (forward_ && now >= forward_at_) {
            signal_job(forward_);
            forward_ = 0;
            kill_at_ = now + kill_grace;
            for (pe_slot& p : pes_) drop_request(p), close_sock(p);
        }
        if (stopping_ && now >= kill_at_ && !killed_) {
            signal_job(SIGKILL);
            killed_ = true;
        }
        if (timeout_at_ && now >= *timeout_at_ && !stopping_) {
            say("timeout after %g s; stopping the job", opt_.timeout_s);
            fail_and_stop(exit_timeout);
        }
        // A PE that others wait for has left: after its exit with 0, or after its connection closed
        // and it did not exit soon (an exit with another status is named by reap instead).
        for (int pe = 0; pe < opt_.n && !stopping_; ++pe) {
            const pe_slot& p = pes_[pe];
            if (!needed(pe)) continue;
            if (!p.running) {
                say("PE %d (pid %d) exited with status 0 while %s", pe, p.pid, waiting_text(pe).c_str());
                fail_and_stop();
            } else if (p.sock < 0 && now >= p.closed + exit_after_close) {
                say("PE %d (pid %d) closed its connection to ishmrun while %s", pe, p.pid, waiting_text(pe).c_str());
                fail_and_stop();
            }
        }
    }

    const options& opt_;
    std::string path_;
    std::vector<pe_slot> pes_;
    std::vector<cpu_set_t> binding_;  // per PE; empty: unbound
    sigset_t handled_{}, saved_mask_{};
    rlimit saved_nofile_{};
    int sigfd_ = -1;
    pid_t pgid_ = 0;
    bool stdin_is_tty_ = false;
    int running_ = 0;
    bool stopping_ = false, killed_ = false;
    int exit_code_ = 0;
    int forward_ = 0;  // the signal to pass on at forward_at_, after the PEs' report (0: none pending)
    clock_type::time_point kill_at_{}, forward_at_{};
    std::optional<clock_type::time_point> timeout_at_;
};

}  // namespace

int main(int argc, char** argv) {
    options o = parse_args(argc, argv);
    std::string path = resolve_program(o.argv[0]);
    job j(o, path);
    return j.run();
}

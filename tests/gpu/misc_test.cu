// Setup queries and ishmem_ptr on the device: my_pe/n_pes/info match the host's; a pointer from
// ishmem_ptr (device- or host-side) lets a kernel store straight into a peer's heap; ptr of a
// non-symmetric address is null; ishmemx_print runs from a kernel.
#include "gpu_testing.h"

#include <cstring>

namespace {

using namespace ishmem_gpu_testing;

class GpuMisc : public GpuTest {};

struct queries {
    int my_pe, n_pes, major, minor;
    char name[ISHMEM_MAX_NAME_LEN];
    int ptr_of_local_is_null;
    int ptr_of_self_is_null;
};

__global__ void query(queries* q, const int* symmetric, const int* local) {
    q->my_pe = ishmem_my_pe();
    q->n_pes = ishmem_n_pes();
    ishmem_info_get_version(&q->major, &q->minor);
    ishmem_info_get_name(q->name);
    q->ptr_of_local_is_null = ishmem_ptr(local, ishmem_my_pe()) == nullptr;
    q->ptr_of_self_is_null = ishmem_ptr(symmetric, ishmem_my_pe()) == nullptr;
}

TEST_F(GpuMisc, QueriesMatchTheHost) {
    gpu_sym<int> sym(1);
    ASSERT_TRUE(sym);
    dev_array<int> local(1);
    managed<queries> q;
    stream s;
    query<<<1, 1, 0, s>>>(q.get(), sym.get(), local.get());
    GPU_LAUNCHED("query");
    sync(s, "query");
    EXPECT_EQ(q[0].my_pe, ishmem_my_pe());
    EXPECT_EQ(q[0].n_pes, ishmem_n_pes());
    int major = -1, minor = -1;
    ishmem_info_get_version(&major, &minor);
    EXPECT_EQ(q[0].major, major);
    EXPECT_EQ(q[0].minor, minor);
    char name[ISHMEM_MAX_NAME_LEN] = {};
    ishmem_info_get_name(name);
    EXPECT_STREQ(q[0].name, name);
    EXPECT_EQ(q[0].ptr_of_local_is_null, 1) << "ishmem_ptr of a non-symmetric address";
    EXPECT_EQ(q[0].ptr_of_self_is_null, 0) << "ishmem_ptr of my own symmetric object";
}

// Each thread stores through ishmem_ptr(buf, right) (taken on the device) into buf2 through the
// pointer the host's ishmem_ptr gave; both land in the right neighbour's copies.
constexpr int ptr_n = 4096;

__global__ void store_through_ptr(int* buf, int* host_ptr_to_right, report_data* rep) {
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    const int right = (me + 1) % n;
    int* p = static_cast<int*>(ishmem_ptr(buf, right));
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (p == nullptr) {
        if (i == 0) report_mismatch(rep, right, 0, 1, __LINE__);  // "got a null pointer for PE right"
        return;
    }
    if (i < ptr_n) {
        p[i] = pattern(me, 5, i);
        if (host_ptr_to_right) host_ptr_to_right[i] = pattern(me, 6, i);
    }
    __threadfence_system();
}

TEST_F(GpuMisc, PtrGivesAPointerKernelsStoreThrough) {
    gpu_sym<int> buf(ptr_n), buf2(ptr_n);
    ASSERT_TRUE(buf && buf2);
    int* host_ptr = static_cast<int*>(ishmem_ptr(buf2.get(), right));
    EXPECT_NE(host_ptr, nullptr) << "host ishmem_ptr for PE " << right << " (same node: mapped)";
    dev_report rep;
    stream s;
    ishmem_barrier_all();
    store_through_ptr<<<ptr_n / 256, 256, 0, s>>>(buf.get(), host_ptr, rep);
    GPU_LAUNCHED("store_through_ptr");
    sync(s, "store_through_ptr");
    rep.expect_clean("device ishmem_ptr was null (where = PE)");
    ishmem_barrier_all();
    expect_elements(
        buf.read(), [&](size_t i) { return pattern(left, 5, static_cast<long long>(i)); },
        "stores through device ishmem_ptr");
    if (host_ptr)
        expect_elements(
            buf2.read(), [&](size_t i) { return pattern(left, 6, static_cast<long long>(i)); },
            "stores through host ishmem_ptr");
    ishmem_barrier_all();
}

#if ISHMEM_GPU_TEST_HAVE_PRINT
// More messages from one thread than the ring has slots: the thread waits for the host, and none is lost.
constexpr int print_burst = 3 * ishmemi::cuda::print_slots;

__device__ void burst_text(char* text, int k) {  // "burst <k>"
    const char head[] = "burst ";
    int i = 0;
    for (; head[i]; ++i) text[i] = head[i];
    char digits[12];
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + k % 10);
        k /= 10;
    } while (k);
    while (n) text[i++] = digits[--n];
    text[i] = 0;
}

__global__ void print_from_device() {
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        ishmemx_print("block zero warns", WARNING);
        ishmemx_print("block zero to stdout", STDOUT);
        char text[32];
        for (int k = 0; k < print_burst; ++k) {
            burst_text(text, k);
            ishmemx_print(text, STDERR);
        }
    } else {
        ishmemx_print(__FILE__, __LINE__, __func__, "block one, located", ERROR);
    }
}

// Sends this process's file descriptor fd into a temporary file until stop(): the device's messages
// are written by the watcher thread, later than the kernel ends, so the test polls what arrived.
class fd_capture {
  public:
    explicit fd_capture(int fd) : fd_(fd) {
        std::fflush(nullptr);
        char path[] = "/tmp/ishmem_gpu_print_XXXXXX";
        file_ = mkstemp(path);
        if (file_ < 0) ADD_FAILURE() << "mkstemp failed: output is not captured";
        unlink(path);
        saved_ = dup(fd);
        dup2(file_, fd);
    }
    ~fd_capture() {
        stop();
        close(file_);
    }
    void stop() {
        if (saved_ < 0) return;
        std::fflush(nullptr);
        dup2(saved_, fd_);
        close(saved_);
        saved_ = -1;
    }
    std::string text() const {
        std::string t;
        char buf[4096];
        ssize_t n;
        while ((n = pread(file_, buf, sizeof buf, static_cast<off_t>(t.size()))) > 0)
            t.append(buf, static_cast<size_t>(n));
        return t;
    }

  private:
    int fd_, file_ = -1, saved_ = -1;
};
#endif

TEST_F(GpuMisc, PrintFromDevice) {
#if ISHMEM_GPU_TEST_HAVE_PRINT
    // The host adds the verbose prefix when it prints, and reads the variable then.
    const char* was = std::getenv("ISHMEM_ENABLE_VERBOSE_PRINT");
    const std::string saved = was ? was : "";
    setenv("ISHMEM_ENABLE_VERBOSE_PRINT", "1", 1);
    std::string err, out;
    bool arrived = false;
    {
        fd_capture err_capture(STDERR_FILENO), out_capture(STDOUT_FILENO);
        stream s;
        print_from_device<<<2, 32, 0, s>>>();
        GPU_LAUNCHED("print_from_device");
        sync(s, "print_from_device");
        auto lines = [](const std::string& t) {
            int n = 0;
            for (char c : t) n += c == '\n';
            return n;
        };
        // Polled here rather than with wait_for: a failure reported now would go into the capture.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!(arrived = lines(err_capture.text()) >= print_burst + 2 && lines(out_capture.text()) >= 1) &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        err = err_capture.text();
        out = out_capture.text();
    }  // the captures end before any failure is printed
    if (was)
        setenv("ISHMEM_ENABLE_VERBOSE_PRINT", saved.c_str(), 1);
    else
        unsetenv("ISHMEM_ENABLE_VERBOSE_PRINT");

    EXPECT_TRUE(arrived) << "the device's messages did not reach stderr and stdout within 10 s";
    const std::string pe = "ishmem: PE " + std::to_string(ishmem_my_pe());
    const std::string block0 = pe + " (device code, block 0, thread 0): ";
    EXPECT_NE(err.find(block0 + "warning: block zero warns\n"), std::string::npos) << err;
    EXPECT_EQ(out, block0 + "stdout: block zero to stdout\n");
    const std::string head1 = pe + " (device code, block 1, thread 0): error: ";
    const size_t at1 = err.find(head1);
    ASSERT_NE(at1, std::string::npos) << err;
    const std::string located = err.substr(at1, err.find('\n', at1) - at1);
    EXPECT_NE(located.find("misc_test.cu:"), std::string::npos) << located;
    EXPECT_NE(located.find("print_from_device"), std::string::npos) << located;
    EXPECT_TRUE(located.ends_with(": block one, located")) << located;
    // One thread's messages come out in the order it printed them.
    size_t at = 0;
    for (int k = 0; k < print_burst; ++k) {
        const std::string line = block0 + "stderr: burst " + std::to_string(k) + "\n";
        const size_t found = err.find(line, at);
        if (found == std::string::npos) {
            ADD_FAILURE() << "burst " << k << " missing or out of order:\n" << err;
            break;
        }
        at = found + line.size();
    }
#else
    GTEST_SKIP() << "ishmemx_print is not declared in ishmemx.h (not in spec/ yet)";
#endif
}

}  // namespace

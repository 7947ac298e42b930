// The gtest main of the multi-PE test suite: every PE of `ishmrun -n N ishmem_tests` runs it.
//
//  - ishmem_init() before the tests, ishmem_finalize() after.
//  - PE 0 prints gtest's usual output; the other PEs print only their failures, each line prefixed
//    with "[PE k]".
//  - After each test the PEs meet in ishmem_barrier_all(), so that no PE starts a test while another
//    still works on the previous one's symmetric data.
//  - Watchdog: a test (or init/finalize) still running after ISHMEM_TEST_TIMEOUT seconds (default
//    60; 0 turns it off) prints "[PE k] TIMEOUT: <suite.test> still running after N s" and ends the
//    PE with status 3; the launcher then stops the others. PEs waiting for a hung one in the barrier
//    after the test give it 5 s more, so that the hung PE is the one that reports. It is SIGALRM,
//    not a thread: it fires even when every thread is stuck, adds no thread that death tests' fork()
//    would warn about, and is not inherited by their children.
//  - The exit status is nonzero when a test failed on this PE.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "ishmem.h"

namespace {

// ---------------------------------------------------------------------------------------------
// Watchdog

unsigned timeout_seconds = 60;
std::string pe_label = "?";  // "[PE ?]" until ishmem_init has told us who we are
char timeout_message[512];   // written before the alarm is armed; read by the signal handler
size_t timeout_message_len = 0;

extern "C" void on_timeout(int) {  // only async-signal-safe calls here
    [[maybe_unused]] ssize_t written = write(STDERR_FILENO, timeout_message, timeout_message_len);
    _exit(3);
}

unsigned read_timeout() {
    const char* s = std::getenv("ISHMEM_TEST_TIMEOUT");
    if (!s || !*s) return 60;
    char* end = nullptr;
    long v = std::strtol(s, &end, 10);
    if (*end != '\0' || v < 0) {
        std::fprintf(stderr, "ishmem tests: ignoring ISHMEM_TEST_TIMEOUT=%s (want seconds >= 0)\n", s);
        return 60;
    }
    return static_cast<unsigned>(v);
}

// Arms the alarm with "[PE k] TIMEOUT: <what> after N s" as its last words.
void arm_watchdog(const std::string& what, unsigned extra_seconds = 0) {
    if (timeout_seconds == 0) return;
    const unsigned seconds = timeout_seconds + extra_seconds;
    int n = std::snprintf(timeout_message, sizeof timeout_message, "[PE %s] TIMEOUT: %s after %u s\n", pe_label.c_str(),
                          what.c_str(), seconds);
    timeout_message_len = n < 0 ? 0 : std::min(static_cast<size_t>(n), sizeof timeout_message - 1);
    alarm(seconds);
}

void disarm_watchdog() { alarm(0); }

void install_watchdog() {
    timeout_seconds = read_timeout();
    struct sigaction sa {};
    sa.sa_handler = on_timeout;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, nullptr);
}

std::string full_name(const testing::TestInfo& t) { return std::string(t.test_suite_name()) + "." + t.name(); }

// Arms the watchdog around each test, and keeps the PEs in step between tests.
class lockstep_listener : public testing::EmptyTestEventListener {
  public:
    void OnTestStart(const testing::TestInfo& t) override { arm_watchdog(full_name(t) + " still running"); }
    void OnTestEnd(const testing::TestInfo& t) override {
        // A PE that finished waits a little longer than the test's limit, so that the PE that hangs
        // in the test is the one that reports first.
        arm_watchdog("finished " + full_name(t) + ", waited for the other PEs", 5);
        ishmem_barrier_all();
        disarm_watchdog();
    }
};

// ---------------------------------------------------------------------------------------------
// Output of PEs other than 0: failures only

class failure_printer : public testing::EmptyTestEventListener {
  public:
    explicit failure_printer(int pe) : prefix_("[PE " + std::to_string(pe) + "] ") {}

    // gtest holds its own lock here: current_test_info() would deadlock, so the name is kept.
    void OnTestStart(const testing::TestInfo& t) override { current_ = full_name(t); }
    void OnTestEnd(const testing::TestInfo&) override { current_ = "(outside a test)"; }

    void OnTestPartResult(const testing::TestPartResult& r) override {
        if (!r.failed()) return;
        std::ostringstream os;
        os << prefix_ << "FAILED " << current_ << " at " << (r.file_name() ? r.file_name() : "unknown file") << ":"
           << r.line_number() << "\n";
        std::istringstream lines(r.message());
        for (std::string line; std::getline(lines, line);) os << prefix_ << "  " << line << "\n";
        emit(os.str());
    }

    void OnTestProgramEnd(const testing::UnitTest& u) override {
        if (u.failed_test_count() == 0) return;
        std::ostringstream os;
        os << prefix_ << u.failed_test_count() << " test(s) FAILED:";
        for (int i = 0; i < u.total_test_suite_count(); ++i) {
            const testing::TestSuite* s = u.GetTestSuite(i);
            for (int j = 0; j < s->total_test_count(); ++j)
                if (s->GetTestInfo(j)->result()->Failed()) os << " " << full_name(*s->GetTestInfo(j));
        }
        os << "\n";
        emit(os.str());
    }

  private:
    // One write per report, so that the lines of different PEs do not interleave.
    static void emit(const std::string& text) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    }
    std::string prefix_;
    std::string current_ = "(outside a test)";
};

}  // namespace

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    // A death test must fork this process, not re-execute it (that would start a new PE).
    GTEST_FLAG_SET(death_test_style, "fast");
    // Every PE must run the tests in the same order; an unseeded shuffle would differ per PE.
    if (GTEST_FLAG_GET(shuffle) && GTEST_FLAG_GET(random_seed) == 0) GTEST_FLAG_SET(random_seed, 1);

    install_watchdog();
    if (const char* launcher_pe = std::getenv("ISHMEMI_PE")) pe_label = launcher_pe;
    arm_watchdog("ishmem_init still running");
    ishmem_init();
    disarm_watchdog();
    const int pe = ishmem_my_pe();
    pe_label = std::to_string(pe);

    testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
    if (pe != 0) {
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new failure_printer(pe));
    }
    listeners.Append(new lockstep_listener);

    const int failed = RUN_ALL_TESTS();

    arm_watchdog("ishmem_finalize still running");
    ishmem_finalize();
    disarm_watchdog();
    return failed;
}

// ishmemx_print on the host: the exact text of each overload and message type on stdout/stderr,
// with and without ISHMEM_ENABLE_VERBOSE_PRINT and ISHMEM_DEBUG (read at each call, so the tests set
// them with setenv), one write per message when threads print at once, and the check of out.
#include <gtest/gtest.h>
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "harness/harness.h"

namespace {

// What f wrote to stderr and to stdout.
template <class F> std::pair<std::string, std::string> outputs_of(F&& f) {
    testing::internal::CaptureStderr();
    testing::internal::CaptureStdout();
    f();
    std::fflush(stdout);
    std::string out = testing::internal::GetCapturedStdout();
    std::string err = testing::internal::GetCapturedStderr();
    return {err, out};
}
template <class F> std::string stderr_of(F&& f) { return outputs_of(f).first; }
template <class F> std::string stdout_of(F&& f) { return outputs_of(f).second; }

// Each test starts with both variables off, whatever the job's environment says, and leaves the
// environment as it found it.
class Print : public ::testing::Test {
  protected:
    void SetUp() override {
        for (auto& [name, saved] : vars_) {
            if (const char* v = std::getenv(name)) saved = v;
            setenv(name, "0", 1);
        }
    }
    void TearDown() override {
        for (auto& [name, saved] : vars_) {
            if (saved)
                setenv(name, saved->c_str(), 1);
            else
                unsetenv(name);
        }
    }
    static void verbose(bool on) { setenv("ISHMEM_ENABLE_VERBOSE_PRINT", on ? "1" : "0", 1); }
    static void debug(bool on) { setenv("ISHMEM_DEBUG", on ? "1" : "0", 1); }
    // "ishmem: PE <me>: <type>: ", the verbose prefix of a host call.
    static std::string prefix(const std::string& type) {
        return "ishmem: PE " + std::to_string(ishmem_my_pe()) + ": " + type + ": ";
    }

  private:
    std::vector<std::pair<const char*, std::optional<std::string>>> vars_ = {{"ISHMEM_ENABLE_VERBOSE_PRINT", {}},
                                                                             {"ISHMEM_DEBUG", {}}};
};

TEST_F(Print, EachTypeGoesToItsStream) {
    for (auto type : {WARNING, ERROR, STDERR}) {
        auto [err, out] = outputs_of([&] { ishmemx_print("to stderr", type); });
        EXPECT_EQ(err, "to stderr\n") << "type " << type;
        EXPECT_EQ(out, "");
    }
    auto [err, out] = outputs_of([] { ishmemx_print("to stdout", STDOUT); });
    EXPECT_EQ(err, "");
    EXPECT_EQ(out, "to stdout\n");
}

TEST_F(Print, DebugMessagesNeedIshmemDebug) {
    auto all_three = [] {
        ishmemx_print("one");
        ishmemx_print("two", DEBUG);
        ishmemx_print("file.cpp", 7, "fn", "three", DEBUG);
    };
    auto [err, out] = outputs_of(all_three);
    EXPECT_EQ(err, "");
    EXPECT_EQ(out, "");
    debug(true);
    std::tie(err, out) = outputs_of(all_three);
    EXPECT_EQ(err, "one\ntwo\nthree\n");
    EXPECT_EQ(out, "");
}

TEST_F(Print, NewlineAddedOnlyWhenMissing) {
    EXPECT_EQ(stderr_of([] { ishmemx_print("ends with one\n", WARNING); }), "ends with one\n");
    EXPECT_EQ(stderr_of([] { ishmemx_print("two\nlines", WARNING); }), "two\nlines\n");
    EXPECT_EQ(stderr_of([] { ishmemx_print("", WARNING); }), "\n");
}

TEST_F(Print, LocationShowsOnlyWhenVerbose) {
    EXPECT_EQ(stderr_of([] { ishmemx_print("print_test.cpp", 42, "check", "located", ERROR); }), "located\n");
}

TEST_F(Print, VerbosePrefixNamesPeTypeAndLocation) {
    verbose(true);
    EXPECT_EQ(stderr_of([] { ishmemx_print("w", WARNING); }), prefix("warning") + "w\n");
    EXPECT_EQ(stderr_of([] { ishmemx_print("e", ERROR); }), prefix("error") + "e\n");
    EXPECT_EQ(stderr_of([] { ishmemx_print("s", STDERR); }), prefix("stderr") + "s\n");
    EXPECT_EQ(stdout_of([] { ishmemx_print("o", STDOUT); }), prefix("stdout") + "o\n");
    EXPECT_EQ(stderr_of([] { ishmemx_print("dir/print_test.cpp", 42, "check", "located", ERROR); }),
              prefix("error") + "dir/print_test.cpp:42: check: located\n");
    // A null file or func is left out.
    EXPECT_EQ(stderr_of([] { ishmemx_print(nullptr, 0, "check", "no file", WARNING); }),
              prefix("warning") + "check: no file\n");
    EXPECT_EQ(stderr_of([] { ishmemx_print("a.cpp", 3, nullptr, "no func", WARNING); }),
              prefix("warning") + "a.cpp:3: no func\n");
    EXPECT_EQ(stderr_of([] { ishmemx_print(nullptr, 0, nullptr, "neither", WARNING); }),
              prefix("warning") + "neither\n");
    // A block of lines gets one prefix.
    EXPECT_EQ(stderr_of([] { ishmemx_print("a\nb\n", WARNING); }), prefix("warning") + "a\nb\n");
    // DEBUG: still nothing without ISHMEM_DEBUG.
    EXPECT_EQ(stderr_of([] { ishmemx_print("d"); }), "");
    debug(true);
    EXPECT_EQ(stderr_of([] { ishmemx_print("d"); }), prefix("debug") + "d\n");
    EXPECT_EQ(stderr_of([] { ishmemx_print("f.cpp", 1, "g", "d", DEBUG); }), prefix("debug") + "f.cpp:1: g: d\n");
}

TEST_F(Print, StdoutKeepsOrderWithStdio) {
    // What the program left in stdout's buffer comes out before the message.
    EXPECT_EQ(stdout_of([] {
                  std::printf("buffered ");
                  ishmemx_print("then printed", STDOUT);
              }),
              "buffered then printed\n");
}

TEST_F(Print, ThreadsPrintingAtOnceNeverMix) {
    verbose(true);
    constexpr int threads = 8, messages = 40;
    const std::string payload(600, 'x');  // several lines, longer than a stdio buffer's small writes
    std::string err = stderr_of([&] {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                for (int m = 0; m < messages; ++m) {
                    const std::string text = "thread " + std::to_string(t) + " message " + std::to_string(m) + "\n" +
                                             payload + "\nend " + std::to_string(t) + "/" + std::to_string(m);
                    ishmemx_print(__FILE__, __LINE__, "worker", text.c_str(), STDERR);
                }
            });
        for (auto& th : pool) th.join();
    });
    const std::regex block(prefix("stderr") + ".*print_test\\.cpp:[0-9]+: worker: thread ([0-9]+) message ([0-9]+)\n" +
                           payload + "\nend \\1/\\2\n");
    int blocks = 0;
    auto it = std::sregex_iterator(err.begin(), err.end(), block);
    size_t covered = 0;
    for (; it != std::sregex_iterator(); ++it, ++blocks) {
        EXPECT_EQ(static_cast<size_t>(it->position()), covered) << "something between messages at byte " << covered;
        covered = it->position() + it->length();
    }
    EXPECT_EQ(blocks, threads * messages);
    EXPECT_EQ(covered, err.size());
}

TEST_F(Print, NullMessageStops) {
    EXPECT_ISHMEM_ERROR(ishmemx_print(nullptr), "ishmemx_print: out is null");
    EXPECT_ISHMEM_ERROR(ishmemx_print(nullptr, ERROR), "ishmemx_print: out is null");
    EXPECT_ISHMEM_ERROR(ishmemx_print("f.cpp", 1, "g", nullptr, ERROR), "ishmemx_print: out is null");
}

}  // namespace

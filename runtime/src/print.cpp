// ishmemx_print on the host, and for device code through the CUDA backend's watcher: the message,
// with the verbose prefix when asked for, goes out in one write(2), so that the messages of PEs and
// threads printing at once never mix.
#include "print.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "config.h"
#include "ishmem/impl/runtime.h"
#include "ishmemx.h"

namespace ishmemi {

static_assert(DEBUG == print_type_debug, "ishmem/impl/print.h: print_type_debug must be DEBUG's value");

namespace {

// Read at each call rather than once at ishmem_init: prints before init follow the variables too, and
// a program (or a test) may switch them between prints. ishmem_init rejects malformed values.
bool env_on(const char* name) {
    const char* text = getenv(name);
    bool on = false;
    return text && parse_bool(text, &on) && on;
}

std::string type_name(int type) {
    switch (type) {
        case DEBUG:
            return "debug";
        case WARNING:
            return "warning";
        case ERROR:
            return "error";
        case STDOUT:
            return "stdout";
        case STDERR:
            return "stderr";
        default:
            return "message type " + std::to_string(type);
    }
}

void write_all(int fd, const std::string& text) {
    const char* p = text.data();
    size_t left = text.size();
    while (left > 0) {  // one write unless the output is a pipe that takes less than the whole
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // nowhere to report it: the output itself failed
        p += n;
        left -= static_cast<size_t>(n);
    }
}

}  // namespace

bool print_debug_enabled() { return env_on("ISHMEM_DEBUG"); }

void print_message(const print_request& r) {
    if (r.type == DEBUG && !print_debug_enabled()) return;
    std::string text;
    if (env_on("ISHMEM_ENABLE_VERBOSE_PRINT")) {
        text = "ishmem: PE " + (state.my_pe >= 0 ? std::to_string(state.my_pe) : std::string("?"));
        if (r.block >= 0)
            text += " (device code, block " + std::to_string(r.block) + ", thread " + std::to_string(r.thread) + ")";
        text += ": " + type_name(r.type) + ": ";
        if (r.file) text += std::string(r.file) + ":" + std::to_string(r.line) + ": ";
        if (r.func) text += std::string(r.func) + ": ";
    }
    text += r.out;
    if (text.empty() || text.back() != '\n') text += '\n';
    const bool to_stdout = r.type == STDOUT;
    fflush(to_stdout ? stdout : stderr);  // what the program wrote through stdio before comes first
    write_all(to_stdout ? STDOUT_FILENO : STDERR_FILENO, text);
}

namespace impl {

void print(const char* file, long line, const char* func, const char* out, int msg_type) {
    print_message({file, line, func, out, msg_type, -1, -1});
}

void pcontrol(int level) {
    if (!print_debug_enabled()) return;
    const std::string text = "ishmemx_pcontrol: profiling level " + std::to_string(level) +
                             " (the library has no profiler of its own; tools that intercept this routine see it)";
    print_message({nullptr, 0, nullptr, text.c_str(), DEBUG, -1, -1});
}

}  // namespace impl
}  // namespace ishmemi

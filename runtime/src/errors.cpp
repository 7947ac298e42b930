// The single error path: one line naming PE, routine and reason, then the process stops.
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "called_as.h"
#include "config.h"
#include "ishmem/impl/runtime.h"

extern "C" {
ISHMEM_API __thread const char* ishmemi_called_as = nullptr;
}

namespace ishmemi {

namespace {

// Set when the program includes shmem.h: it calls the library under OpenSHMEM's names, so messages
// name shmem_int_put where the routine is ishmem_int_put (or ishmemx_set_lock: shmem_set_lock).
bool openshmem_names = false;

const char* named(const char* routine) {
    if (ishmemi_called_as) return ishmemi_called_as;  // a shmem.h routine that forwards to this one
    if (!openshmem_names || !routine) return routine;
    thread_local char buf[128];
    const char* rest = nullptr;
    if (strncmp(routine, "ishmemx_", 8) == 0)
        rest = routine + 8;
    else if (strncmp(routine, "ishmem_", 7) == 0)
        rest = routine + 7;
    if (!rest) return routine;
    snprintf(buf, sizeof buf, "shmem_%s", rest);
    return buf;
}

// The same for the reason's text: routine names (ishmem_init -> shmem_init) and the API's constants
// (ISHMEM_TEAM_INVALID -> SHMEM_TEAM_INVALID), in place. Environment variables (ISHMEM_SYMMETRIC_SIZE)
// keep their names: only the prefixes of constants that shmem.h renames are rewritten. Signal-safe
// (the stop report calls it from a handler): no allocation, ASCII tests only, never longer.
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_word(char c) { return is_lower(c) || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

void rename_in_text(char* text) {
    static const char* const constants[] = {"ISHMEM_CMP_",  "ISHMEM_SIGNAL_",  "ISHMEM_TEAM_",
                                            "ISHMEMX_CTX_", "ISHMEMX_MALLOC_", "ISHMEM_THREAD_"};
    char* out = text;  // out never passes p: each rewrite drops one or two characters
    for (const char* p = text; *p;) {
        const bool word_start = p == text || !is_word(p[-1]);
        size_t skip = 0;
        if (word_start && strncmp(p, "ishmemx_", 8) == 0)
            skip = 8;
        else if (word_start && strncmp(p, "ishmem_", 7) == 0)
            skip = 7;
        else if (word_start && strncmp(p, "ISHMEMX_", 8) == 0)
            skip = 8;
        else if (word_start && strncmp(p, "ISHMEM_", 7) == 0)
            skip = 7;
        bool rename = skip != 0 && is_lower(p[0]);
        for (const char* c : constants) rename = rename || (skip != 0 && strncmp(p, c, strlen(c)) == 0);
        if (rename) {
            const char* prefix = is_lower(p[0]) ? "shmem_" : "SHMEM_";
            p += skip;  // first: the prefix may overwrite what p pointed at
            for (const char* q = prefix; *q;) *out++ = *q++;
        } else {
            *out++ = *p++;
        }
    }
    *out = '\0';
}

// "ishmem: PE 3: " or "ishmem: PE ?: " when the PE is not known yet.
void print_line(const char* kind, const char* routine, const char* fmt, va_list ap) {
    routine = named(routine);
    char msg[1024];
    int n = state.my_pe >= 0 ? snprintf(msg, sizeof msg, "ishmem: PE %d: %s%s: ", state.my_pe, kind, routine)
                             : snprintf(msg, sizeof msg, "ishmem: PE ?: %s%s: ", kind, routine);
    if (n < 0) n = 0;
    if (static_cast<size_t>(n) < sizeof msg) {
        vsnprintf(msg + n, sizeof msg - n, fmt, ap);
        if (openshmem_names) rename_in_text(msg + n);
    }
    // One write of the whole line so that lines of concurrent PEs do not interleave.
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
}

}  // namespace

void spell_as_program(char* text) {
    if (openshmem_names) rename_in_text(text);
}

void fatal(const char* routine, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    print_line("", routine, fmt, ap);
    va_end(ap);
    fflush(stdout);
    _exit(1);
}

void warn(const char* routine, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    print_line("warning: ", routine, fmt, ap);
    va_end(ap);
}

void debug(const char* routine, const char* fmt, ...) {
    if (!config.debug) return;
    va_list ap;
    va_start(ap, fmt);
    print_line("debug: ", routine, fmt, ap);
    va_end(ap);
}

void fail_init(const char* routine) {
    fatal(routine, state.finalized ? "called after ishmem_finalize" : "called before ishmem_init");
}

void fail_pe(const char* routine, int pe) {
    if (!state.initialized) fail_init(routine);
    fatal(routine, "PE %d is out of range [0, %d)", pe, state.n_pes);
}

void fail_symmetric(const char* routine, const char* param, const void* addr, size_t bytes) {
    if (!state.initialized) fail_init(routine);
    // The checks' sizes saturate (mul_size): SIZE_MAX bytes stand for a count times an element
    // size, or a stride times a count, that does not fit size_t.
    if (bytes == SIZE_MAX)
        fatal(routine, "%s (%p): the size of the range overflows size_t (the element count or stride is too large)",
              param, addr);
    const char* base = state.heap_base;
    const char* p = static_cast<const char*>(addr);
    if (p >= base && p <= base + state.heap_size)
        fatal(routine, "%s (%p) with %zu bytes runs past the end of the symmetric heap [%p, %p)", param, addr, bytes,
              static_cast<const void*>(base), static_cast<const void*>(base + state.heap_size));
    const char* glo = state.globals_base;
    const char* ghi = glo + state.globals_size;
    if (glo && p >= glo && p <= ghi)
        fatal(routine, "%s (%p) with %zu bytes runs past the end of the program's symmetric data and bss [%p, %p)",
              param, addr, bytes, static_cast<const void*>(glo), static_cast<const void*>(ghi));
    if (glo)
        fatal(routine,
              "%s (%p) is outside the symmetric heap [%p, %p) and the program's symmetric data and bss "
              "[%p, %p) (a stack, heap or shared library's variable is not symmetric)",
              param, addr, static_cast<const void*>(base), static_cast<const void*>(base + state.heap_size),
              static_cast<const void*>(glo), static_cast<const void*>(ghi));
    fatal(routine, "%s (%p) is outside the symmetric heap [%p, %p)%s", param, addr, static_cast<const void*>(base),
          static_cast<const void*>(base + state.heap_size),
          state.backend == backend_kind::host ? "" : " (global variables are symmetric only on the host backend)");
}

void fail_nonnull(const char* routine, const char* param, size_t count) {
    fatal(routine, "%s is null with %zu elements", param, count);
}

void fail_sig_op(const char* routine, int sig_op) {
    fatal(routine, "sig_op %d is neither ISHMEM_SIGNAL_SET (%d) nor ISHMEM_SIGNAL_ADD (%d)", sig_op, ISHMEM_SIGNAL_SET,
          ISHMEM_SIGNAL_ADD);
}

void fail_cmp(const char* routine, int cmp) {
    fatal(routine, "cmp %d is not a comparison operator (ISHMEM_CMP_EQ..ISHMEM_CMP_LE, %d..%d)", cmp, ISHMEM_CMP_EQ,
          ISHMEM_CMP_LE);
}

void fail_power_of_two(const char* routine, const char* param, size_t v) {
    fatal(routine, "%s %zu is not a power of two", param, v);
}

void fail_positive(const char* routine, const char* param, long long v) {
    fatal(routine, "%s is %lld; it must be positive", param, v);
}

bool report_flags(const char* routine, const char* param, long value, long allowed) {
    if (!routine) return false;  // (a work-group's other work-items: its leader reports)
    warn(routine, "%s is %#lx: bits %#lx are not among the flags it takes (%#lx)", param, value, value & ~allowed,
         allowed);
    return false;
}

void fail_aligned(const char* routine, const char* param, const void* addr, size_t align) {
    fatal(routine, "%s (%p) is not aligned to %zu bytes, as an atomic on its element type needs", param, addr, align);
}

}  // namespace ishmemi

// shmem.h calls this from a constructor in every file that includes it.
extern "C" ISHMEM_API void ishmemi_use_openshmem_names(void) { ishmemi::openshmem_names = true; }

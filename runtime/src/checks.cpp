// ISHMEM_CHECK=full and ISHMEM_HANG_TIMEOUT: the checks that cost too much to run always. Nothing
// here runs unless ishmem_init found one of them set; the fast paths test one global flag.
//   - bounds: a symmetric range must lie inside one live allocation, not merely inside the heap;
//   - agreement: before a collective, the members compare what each of them called (agree_on_call);
//   - watchdog: a PE blocked longer than ISHMEM_HANG_TIMEOUT prints where every PE is and stops.
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "allocator.h"
#include "called_as.h"
#include "config.h"
#include "control.h"
#include "ishmem/impl/teams.h"
#include "signal_safe_text.h"

namespace ishmemi {

bool watch_calls = false;

namespace {

thread_local call_info* current = nullptr;
// The typed entry point (ishmem_int_sum_reduce) that this thread checked last, in full mode: the
// core's templates know only the family (ishmem_sum_reduce), the messages name what the user called.
thread_local const char* last_entry = nullptr;

const char* shown(const call_info& ci) { return ci.typed ? ci.typed : ci.routine; }

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);  // one clock for every PE of the node
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

where_record* where_of(int pe) { return &control(pe)->where; }

void copy_name(char* dst, size_t n, const char* src) { snprintf(dst, n, "%s", src ? src : ""); }

// The key arguments of a call, as the watchdog prints them.
void describe(const call_info& ci, char* out, size_t n) {
    std::string s;
    char buf[96];
    auto add = [&](const char* fmt, auto... args) {
        snprintf(buf, sizeof buf, fmt, args...);
        s += s.empty() ? "" : ", ";
        s += buf;
    };
    if (ci.team >= 0) add("team %d", ci.team);
    if (ci.root >= 0) add("root %d", ci.root);
    if (ci.addr) add("%s %p", ci.addr_name ? ci.addr_name : "addr", ci.addr);
    if (ci.nelems != UINT64_MAX) add("nelems %" PRIu64, ci.nelems);
    if (ci.cmp >= 0) {
        static const char* const names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
        const int i = ci.cmp - ISHMEM_CMP_EQ;
        if (i >= 0 && i < 6)
            add("cmp ISHMEM_CMP_%s", names[i]);
        else
            add("cmp %d", ci.cmp);
    }
    if (ci.value_kind == 'i') add("value %" PRId64, static_cast<int64_t>(ci.value_bits));
    if (ci.value_kind == 'u') add("value %" PRIu64, ci.value_bits);
    if (ci.value_kind == 'f') {
        double d;
        memcpy(&d, &ci.value_bits, sizeof d);
        add("value %g", d);
    }
    if (ci.type && ci.type[0]) add("type %s", ci.type);
    if (ci.polled) add("%s", "false on every call");
    snprintf(out, n, "%s", s.c_str());
}

// A seqlock around the owner's writes: readers on other PEs copy the record and retry on a torn read.
// Threads of one PE take turns (the record shows the call that one of them published last).
std::mutex where_lock;
template <class F> void write_where(F&& f) {
    std::lock_guard<std::mutex> hold(where_lock);
    where_record* w = where_of(state.my_pe);
    const uint64_t g = __atomic_load_n(&w->gen, __ATOMIC_RELAXED);
    __atomic_store_n(&w->gen, g + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    f(*w);
    __atomic_store_n(&w->gen, g + 2, __ATOMIC_RELEASE);
}

// False also for a PE of another node, whose record this PE cannot read.
bool read_where(int pe, where_record* out) {
    if (!internal_base(pe)) return false;
    const where_record* w = where_of(pe);
    for (int tries = 0; tries < 1000; ++tries) {
        const uint64_t g = __atomic_load_n(&w->gen, __ATOMIC_ACQUIRE);
        if (g & 1) continue;
        memcpy(static_cast<void*>(out), w, sizeof *out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&w->gen, __ATOMIC_RELAXED) == g) return true;
    }
    return false;
}

// read_where for any PE: another node's record is read through the transport (the same offset of
// its internal region as this PE's), its generation before and after, as read_where does. Not
// signal-safe: for the agreement check's cycle search only.
bool read_where_any(int pe, where_record* out) {
    if (internal_base(pe)) return read_where(pe, out);
    if (!remote) return false;
    const where_record* mine = where_of(state.my_pe);
    for (int tries = 0; tries < 10; ++tries) {
        uint64_t before = 0, after = 0;
        remote->get(&before, &mine->gen, sizeof before, pe, false);
        if (before & 1) continue;
        remote->get(out, mine, sizeof *out, pe, false);
        remote->get(&after, &mine->gen, sizeof after, pe, false);
        if (after == before) return (out->gen = before), true;
    }
    return false;
}

// How far member pe's agreement records on team slot `team` have come (another node's: read
// through the transport).
uint64_t agreed_seq(int pe, int team, uint64_t seq) {
    const uint64_t* at = &team_slot_of(internal_base(pe) ? pe : state.my_pe, team)->agree[seq % agree_depth].seq;
    if (internal_base(pe)) return __atomic_load_n(at, __ATOMIC_ACQUIRE);
    uint64_t v = 0;
    remote->get(&v, at, sizeof v, pe, false);
    return v;
}

// The library's C entry point that this thread is in (ishmem_long_wait_until), read from the stack:
// the default mode's stubs record no name (that would cost every call a store), and a call that
// publishes has blocked long enough to look. The outermost one is what the program called. Null
// when there is none (a queue's thread): the family's name stays.
const char* entry_on_stack() {
    void* frames[32];
    const int n = backtrace(frames, 32);
    Dl_info self{};
    if (!dladdr(reinterpret_cast<void*>(&watch_tick), &self)) return nullptr;
    const char* found = nullptr;
    for (int i = 1; i < n; ++i) {
        const uintptr_t pc = reinterpret_cast<uintptr_t>(frames[i]) - 1;  // inside the call instruction
        Dl_info info{};
        void* entry = nullptr;
        if (!dladdr1(reinterpret_cast<void*>(pc), &info, &entry, RTLD_DL_SYMENT) || !info.dli_sname || !entry ||
            info.dli_fbase != self.dli_fbase)
            continue;
        const auto* sym = static_cast<const ElfW(Sym)*>(entry);
        // dladdr names the nearest exported symbol below pc, also for a hidden function after it
        const uintptr_t start = reinterpret_cast<uintptr_t>(info.dli_saddr);
        if (pc < start || pc - start >= sym->st_size) continue;
        if (strncmp(info.dli_sname, "ishmem_", 7) == 0 || strncmp(info.dli_sname, "ishmemx_", 8) == 0)
            found = info.dli_sname;
    }
    return found;
}

void publish(call_info& ci) {
    if (!ci.typed) ci.typed = entry_on_stack();
    ci.published = true;
    write_where([&](where_record& w) {
        w.blocked = 1;
        w.since_ns = ci.since_ns;
        copy_name(w.routine, sizeof w.routine, shown(ci));
        describe(ci, w.detail, sizeof w.detail);
        w.agree_team = ci.agree_for >= 0 ? ci.team : -1;
        w.agree_for = ci.agree_for;
        w.agree_seq = ci.agree_seq;
    });
}

// Only one PE prints the report of a broken job: the first to claim the word in PE 0's control
// block. The others wait quietly for the launcher to stop them (and leave after a while if not).
// (PE 0 on another node: every PE that finds a broken job reports it.)
void claim_report_or_wait() {
    if (!internal_base(0)) return;
    uint64_t expected = 0;
    if (__atomic_compare_exchange_n(&control(0)->report_claim, &expected, static_cast<uint64_t>(state.my_pe) + 1, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    sleep(10);
    _exit(1);
}

// One write: lines of other PEs do not interleave. Routine names as the program called them.
void print_report(std::string text) {
    spell_as_program(text.data());
    text.resize(strlen(text.c_str()));
    fflush(stdout);
    ssize_t ignored = write(2, text.data(), text.size());
    (void)ignored;
}

[[noreturn]] void print_and_exit(const std::string& text) {
    print_report(text);
    _exit(1);
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

// The where-every-PE-is report, with room for a line of every PE of a large node. Static: the
// stop report is built in a signal handler (no allocation there), and one report per process is
// ever printed (report_claim).
char report_buffer[256 * 1024];

// One line per PE: where it is. Without the watch (ISHMEM_HANG_TIMEOUT, ISHMEM_CHECK=full) no PE
// records its blocking calls, and the lines say only whether each PE still runs. Signal-safe: it
// reads the PEs' records and formats with signal_safe_text.
void where_every_pe_is(signal_safe_text& text, uint64_t now) {
    for (int pe = 0; pe < state.n_pes; ++pe) {
        text.add("ishmem:   PE ").add(pe).add(": ");
        if (!internal_base(pe)) {
            text.add("on another node (its state is not visible from here)\n");
            continue;
        }
        const uint64_t s = status_of(pe);
        where_record w;
        if (s == pe_finalized) {
            text.add("called ishmem_finalize\n");
        } else if (s == pe_exited) {
            text.add("exited without ishmem_finalize\n");
        } else if (!watch_calls) {
            text.add("running (set ISHMEM_HANG_TIMEOUT to record the call it blocks in)\n");
        } else if (!read_where(pe, &w)) {
            text.add("(its record changes too fast to read)\n");
        } else if (w.blocked) {
            text.add("in ").add(w.routine).add(" (").add(w.detail).add(") for ");
            text.add_seconds(now - w.since_ns).add(" s\n");
        } else if (w.last[0]) {
            text.add("not in a blocking call (left ")
                .add(w.last)
                .add(" ")
                .add_seconds(now - w.left_ns)
                .add(" s ago)\n");
        } else {
            text.add("not in a blocking call (none so far)\n");
        }
    }
}

// Writes a report as the program spells the API, in one write: lines of other PEs do not
// interleave. Signal-safe (spell_as_program rewrites in place).
void write_report(signal_safe_text& text) {
    spell_as_program(text.data());
    write_all(2, text.data(), strlen(text.data()));
}

// The hang report: one header line from the PE that timed out, then one line per PE.
[[noreturn]] void report_hang(const call_info& ci, uint64_t now) {
    claim_report_or_wait();
    char detail[sizeof where_record::detail];
    describe(ci, detail, sizeof detail);
    signal_safe_text text(report_buffer, sizeof report_buffer);
    text.add("ishmem: PE ").add(state.my_pe).add(": ").add(shown(ci)).add(": blocked for ");
    text.add_seconds(now - ci.since_ns).add(" s (").add(detail).add(") (ISHMEM_HANG_TIMEOUT=");
    text.add(config.hang_timeout_text).add("); where every PE is:\n");
    where_every_pe_is(text, now);
    fflush(stdout);
    write_report(text);
    _exit(1);
}

// Agreement waits that form a cycle can never end: PE a waits for b's record on one team while b
// waits for a's on another (or a longer chain back to this PE). A waiting PE's record only changes
// when it stops waiting, so a chain read twice with the same generations is a real cycle. Records
// of PEs on other nodes are read through the transport.
void check_cycle(const call_info& ci) {
    int chain[64];
    uint64_t gens[64];
    where_record w{};
    int pe = ci.agree_for, len = 0;
    // This PE's own link first: the record it waits for may have come since it last looked (a
    // member of another node's is read only now and then).
    if (agreed_seq(pe, ci.team, ci.agree_seq) >= ci.agree_seq) return;
    for (; len < 64 && len < state.n_pes; ++len) {
        if (!read_where_any(pe, &w) || !w.blocked || w.agree_for < 0) return;
        // The link is real only while the record it waits for is missing.
        if (agreed_seq(w.agree_for, w.agree_team, w.agree_seq) >= w.agree_seq) return;
        chain[len] = pe;
        gens[len] = w.gen;
        if (w.agree_for == state.my_pe) break;
        pe = w.agree_for;
    }
    if (len == 64 || len == state.n_pes) return;
    for (int i = 0; i <= len; ++i) {
        where_record again;
        if (!read_where_any(chain[i], &again) || again.gen != gens[i]) return;
    }
    if (agreed_seq(ci.agree_for, ci.team, ci.agree_seq) >= ci.agree_seq) return;
    claim_report_or_wait();
    where_record first;
    read_where_any(ci.agree_for, &first);
    char detail[sizeof where_record::detail];
    describe(ci, detail, sizeof detail);
    print_and_exit(
        format("ishmem: PE %d: %s: the PEs call different collectives: %s (%s) here, but PE %d is in "
               "%s (%s) and waits for %s (ISHMEM_CHECK=full)\n",
               state.my_pe, shown(ci), shown(ci), detail, ci.agree_for, first.routine, first.detail,
               len == 0 ? "this PE" : "PEs that wait for this one"));
}

// Names compared across PEs: the _work_group and ishmemx_ spellings of a collective are the same call.
void canonical(const char* routine, char* out, size_t n) {
    std::string s = routine;
    if (s.rfind("ishmemx_", 0) == 0) s = "ishmem_" + s.substr(8);
    const std::string wg = "_work_group";
    if (s.size() > wg.size() && s.compare(s.size() - wg.size(), wg.size(), wg) == 0) s.resize(s.size() - wg.size());
    snprintf(out, n, "%s", s.c_str());
}

}  // namespace

// ---- bounds -------------------------------------------------------------------------------------

void check_allocation(const char* routine, const char* param, const void* addr, size_t bytes) {
    last_entry = routine;
    if (bytes == 0) return;  // nothing is read or written
    // A range in the executable's data and bss passed check_symmetric: variables there have no
    // recorded sizes, so the range is only known to lie inside the segment.
    if (reinterpret_cast<uintptr_t>(addr) - reinterpret_cast<uintptr_t>(state.globals_base) < state.globals_size)
        return;
    const size_t off = static_cast<size_t>(static_cast<const char*>(addr) - state.heap_base);
    size_t start = 0, size = 0;
    if (!allocator_find(off, &start, &size))
        fatal(routine,
              "%s (%p, heap offset %zu) is not inside any live allocation (never allocated, or freed) "
              "(ISHMEM_CHECK=full)",
              param, addr, off);
    const size_t into = off - start;  // may exceed size: the block's padding past the requested size
    if (bytes > size || into > size - bytes)
        fatal(routine,
              "%s (%p) with %zu bytes runs %zu bytes past the end of its allocation (offset %zu, size %zu), "
              "starting %zu bytes into it (ISHMEM_CHECK=full)",
              param, addr, bytes, into + bytes - size, start, size, into);
}

// ---- where each PE is ---------------------------------------------------------------------------

// ishmrun, told to stop the job (SIGINT, SIGTERM, SIGHUP), asks every PE for the report before it
// passes the signal on (boot_stop_report_signal). In a signal handler: the PE is going down, and the
// report is the one trace of where the PEs waited. One PE prints it, the first to claim it.
void report_on_stop(int stop_signal) {
    if (!state.initialized || !internal_base(0)) return;
    uint64_t expected = 0;
    if (!__atomic_compare_exchange_n(&control(0)->report_claim, &expected, static_cast<uint64_t>(state.my_pe) + 1,
                                     false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return;
    const int saved_errno = errno;  // the interrupted code may be about to read it
    // The signals ishmrun passes on (strsignal may allocate, and reads the locale).
    const char* name = stop_signal == SIGTERM  ? "Terminated"
                       : stop_signal == SIGINT ? "Interrupt"
                       : stop_signal == SIGHUP ? "Hangup"
                                               : "a signal";
    signal_safe_text text(report_buffer, sizeof report_buffer);
    text.add("ishmem: PE ").add(state.my_pe).add(": the job is stopped by signal ").add(stop_signal);
    text.add(" (").add(name).add(") to ishmrun; where every PE is:\n");
    where_every_pe_is(text, now_ns());
    write_report(text);  // (no fflush of stdout: its lock may be held by the code the signal interrupted)
    errno = saved_errno;
}

void call_enter(call_info& ci) {
    // The entry point checked just before on this thread, if it is of this family ("sum_reduce"
    // in "ishmem_int_sum_reduce"); a queue's thread has none and keeps the family name.
    const char* family = strchr(ci.routine, '_');
    ci.typed = last_entry && family && strstr(last_entry, family) ? last_entry : nullptr;
    if (ishmemi_called_as) ci.typed = ishmemi_called_as;  // shmem_long_wait, not shmem_long_wait_until
    last_entry = nullptr;
    ci.published = false;
    ci.agree_for = -1;
    ci.agree_seq = 0;
    ci.nested = current != nullptr;  // a barrier inside a reduction belongs to the reduction
    if (!ci.nested) current = &ci;
}

void call_leave(call_info& ci) {
    if (ci.nested) return;
    if (current == &ci) current = nullptr;
    if (!ci.published) return;
    const uint64_t t = now_ns();
    write_where([&](where_record& w) {
        w.blocked = 0;
        w.agree_for = -1;
        w.left_ns = t;
        copy_name(w.last, sizeof w.last, shown(ci));
    });
}

// Called from backoff's yielding phase: the first call publishes, later ones watch the clock.
void watch_tick() {
    call_info* ci = current;
    if (!ci) return;
    const uint64_t t = now_ns();
    if (!ci->published) {
        ci->since_ns = t;
        ci->next_cycle_check_ns = t;
        publish(*ci);
        return;
    }
    if (config.hang_timeout_ns && t - ci->since_ns > config.hang_timeout_ns) report_hang(*ci, t);
    if (ci->agree_for >= 0 && t >= ci->next_cycle_check_ns) {
        ci->next_cycle_check_ns = t + 20 * 1000 * 1000;
        check_cycle(*ci);
    }
}

// A user's loop of tests: the run of false results on one variable counts from the first; it is
// published once it lasts a millisecond, and ends at the first true result or another variable.
namespace {
thread_local call_info polling{};
thread_local bool polling_on = false;

void polling_end() {
    if (polling_on && polling.published) call_leave(polling);
    polling_on = false;
}
}  // namespace

void watch_test(const call_info& ci, bool satisfied) {
    if (satisfied) {
        polling_end();
        return;
    }
    const uint64_t t = now_ns();
    if (!polling_on || polling.addr != ci.addr || strcmp(polling.routine, ci.routine) != 0) {
        polling_end();
        polling = ci;
        polling.typed = nullptr;
        polling.nested = false;  // call_leave unpublishes it
        polling.published = false;
        polling.polled = true;
        polling.agree_for = -1;
        polling.since_ns = t;
        polling_on = true;
        return;
    }
    if (!polling.published && t - polling.since_ns > 1000 * 1000) publish(polling);
    if (config.hang_timeout_ns && t - polling.since_ns > config.hang_timeout_ns) report_hang(polling, t);
}

// ---- collective agreement -----------------------------------------------------------------------
// Every member writes its record of the call into ring entry seq % agree_depth of the team's slot
// in its own internal region (seq: the checked collectives it has called on the team), then reads
// each other member's entry. No member can be two calls ahead of another (it waits here for the
// others' records of every call), so agree_depth = 2 entries are never overwritten while read.
// The wait cannot hang for good: PEs that call collectives in different orders on one team meet
// at the same seq and see the mismatch; PEs blocked on different teams form a cycle of waits,
// which check_cycle finds; a member that is simply late is waited for, like the collective would.
// A member of another node's record of call seq on team, read through the transport (agreed_seq:
// the same offset of its internal region as this PE's), polled until it is there. It cannot be
// overwritten meanwhile: the member waits for this PE's record of the next call before it writes
// this entry again.
void fetch_record(int pe, ishmem_team_t team, uint64_t seq, call_info& ci, agree_record* out) {
    for (backoff b; agreed_seq(pe, team, seq) < seq; b.pause()) {
        if (ci.agree_for != pe) {  // (the hang report names the member waited for)
            ci.agree_for = pe;
            ci.agree_seq = seq;
            if (ci.published) publish(ci);
        }
    }
    if (ci.agree_for == pe) {
        ci.agree_for = -1;
        if (ci.published) publish(ci);
    }
    remote->get(out, &team_slot_of(state.my_pe, team)->agree[seq % agree_depth], sizeof *out, pe, false);
}

void agree_on_call(ishmem_team_t team, call_info& ci) {
    team_t& t = teams[team];
    if (t.size <= 1) return;
    ci.team = team;  // (the team whose records a wait below is for: check_cycle reads them)
    const uint64_t seq = ++t.agreed_calls;
    agree_record& mine = team_slot_of(state.my_pe, team)->agree[seq % agree_depth];
    canonical(ci.routine, mine.routine, sizeof mine.routine);
    copy_name(mine.shown, sizeof mine.shown, shown(ci));
    mine.root = ci.root;
    mine.nelems = ci.nelems_may_differ ? UINT64_MAX : ci.nelems;
    mine.elem_size = ci.elem_size;
    copy_name(mine.type, sizeof mine.type, ci.type);
    copy_name(mine.args, sizeof mine.args, ci.args);
    __atomic_store_n(&mine.seq, seq, __ATOMIC_RELEASE);
    agree_record fetched;  // a member of another node's
    for (int j = 0; j < t.size; ++j) {
        const int pe = t.world_pe(j);
        if (j == t.my_index) continue;
        const agree_record* read = &fetched;
        if (!internal_base(pe)) {
            fetch_record(pe, team, seq, ci, &fetched);
        } else {
            read = &team_slot_of(pe, team)->agree[seq % agree_depth];
            if (__atomic_load_n(&read->seq, __ATOMIC_ACQUIRE) < seq) {
                ci.agree_for = pe;
                ci.agree_seq = seq;
                if (ci.published) publish(ci);
                wait_at_least(const_cast<uint64_t*>(&read->seq), seq, pe, ci.routine);
                ci.agree_for = -1;
                if (ci.published) publish(ci);
            }
        }
        const agree_record& theirs = *read;
        std::string why;
        if (strcmp(mine.routine, theirs.routine) != 0)
            why = format("collective %" PRIu64 " on team %d is %s here but %s on PE %d", seq, team, mine.shown,
                         theirs.shown, pe);
        else if (mine.root != theirs.root)
            why = format("PE_root is %d here but %d on PE %d", mine.root, theirs.root, pe);
        else if (mine.elem_size != theirs.elem_size || strcmp(mine.type, theirs.type) != 0)
            why = format("the element type is %s (%u bytes) here but %s (%u bytes) on PE %d", mine.type, mine.elem_size,
                         theirs.type, theirs.elem_size, pe);
        else if (mine.nelems != theirs.nelems)
            why = format("nelems is %" PRIu64 " here but %" PRIu64 " on PE %d", mine.nelems, theirs.nelems, pe);
        else if (strcmp(mine.args, theirs.args) != 0)
            why = format("the arguments are %s here but %s on PE %d", mine.args, theirs.args, pe);
        if (!why.empty()) {
            claim_report_or_wait();
            print_and_exit(format("ishmem: PE %d: %s: %s (ISHMEM_CHECK=full)\n", state.my_pe, shown(ci), why.c_str()));
        }
    }
}

}  // namespace ishmemi

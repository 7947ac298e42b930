// ISHMEM_* environment variables: parsed once at init, malformed values stop the job.
#include "config.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

#include <unistd.h>

#include "config_vars.h"
#include "ishmem/impl/collectives.h"
#include "ishmem/impl/runtime.h"
#include "ishmem/impl/sync.h"
#include "ishmem/impl/tuning.h"

extern char** environ;

namespace ishmemi {

config_t config = {size_t{512} << 20,
                   "512M",
                   false,
                   64,
                   tuning::barrier_spins.value,
                   tuning::wait_spins.value,
                   tuning::gpu_coll_block_bytes.value,
                   tuning::gpu_reduce_block_bytes.value,
                   tuning::gpu_stage_bytes.value,
                   tuning::gpu_medium_bytes.value,
                   tuning::gpu_medium_gather_bytes.value,
                   tuning::gpu_medium_reduce_bytes.value,
                   tuning::gpu_medium_part_bytes.value,
                   tuning::gpu_broadcast_piece_bytes.value,
                   tuning::gpu_early_launch.value,
                   "auto",
                   -1,
                   false,
                   0,
                   "0",
                   true,
                   0,
                   0,
                   "hostname",
                   true,
                   false,
                   tuning::progress_sleep_us.value,
                   false,
                   256,
                   0};
size_t reduce_scatter_min = tuning::reduce_scatter_min.value;
int chain_min = tuning::chain_min.value;
size_t scan_chain_max = tuning::scan_chain_max.value;
unsigned spin_limit = 4;
unsigned wait_spin_limit = tuning::wait_spins.value;

namespace {

// The defaults that config_vars.h lists (and ishmrun --help prints) are the tuning table's: the
// number its entry for p.env gives, with a K, M or G suffix (powers of 1024).
constexpr bool same_name(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}
template <class T> constexpr bool listed_default_is(const tuning::param<T>& p) {
    for (const config_var& v : config_vars) {
        if (!same_name(v.name, p.env)) continue;
        unsigned long long n = 0;
        const char* c = v.default_value;
        for (; *c >= '0' && *c <= '9'; ++c) n = n * 10 + static_cast<unsigned long long>(*c - '0');
        for (const char* u = "KMG"; *u && *c; ++u) {
            n <<= 10;
            if (*c == *u) return c[1] == '\0' && n == static_cast<unsigned long long>(p.value);
        }
        return *c == '\0' && n == static_cast<unsigned long long>(p.value);
    }
    return false;
}
static_assert(listed_default_is(tuning::reduce_scatter_min) && listed_default_is(tuning::chain_min) &&
              listed_default_is(tuning::scan_chain_max) && listed_default_is(tuning::progress_sleep_us) &&
              listed_default_is(tuning::gpu_stage_bytes) && listed_default_is(tuning::gpu_medium_bytes) &&
              listed_default_is(tuning::gpu_medium_gather_bytes) &&
              listed_default_is(tuning::gpu_medium_reduce_bytes) && listed_default_is(tuning::gpu_medium_part_bytes) &&
              listed_default_is(tuning::gpu_broadcast_piece_bytes) && listed_default_is(tuning::gpu_coll_block_bytes) &&
              listed_default_is(tuning::gpu_reduce_block_bytes) && listed_default_is(tuning::gpu_early_launch));

const char* default_of(const char* name) {
    for (const config_var& v : config_vars)
        if (strcmp(v.name, name) == 0) return v.default_value;
    return nullptr;
}

// The user's value, or the table's default.
const char* value_of(const char* name) {
    const char* v = getenv(name);
    return v ? v : default_of(name);
}

bool parse_long(const char* text, long lo, long hi, long* out) {
    errno = 0;
    char* end = nullptr;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool is_known(const char* name, size_t len) {
    for (const config_var& v : config_vars)
        if (strlen(v.name) == len && strncmp(v.name, name, len) == 0) return true;
    return false;
}

}  // namespace

bool parse_bool(const char* text, bool* out) {
    static const char* const yes[] = {"1", "y", "yes", "true", "on"};
    static const char* const no[] = {"0", "n", "no", "false", "off"};
    for (const char* s : yes)
        if (strcasecmp(text, s) == 0) return *out = true, true;
    for (const char* s : no)
        if (strcasecmp(text, s) == 0) return *out = false, true;
    return false;
}

bool parse_size(const char* text, size_t* bytes) {
    const char* p = text;
    if (*p < '0' || *p > '9') return false;
    unsigned long long v = 0;
    for (; *p >= '0' && *p <= '9'; ++p) {
        if (v > (ULLONG_MAX - (*p - '0')) / 10) return false;
        v = v * 10 + (*p - '0');
    }
    int shift = 0;
    switch (*p) {
        case 'k':
        case 'K':
            shift = 10;
            ++p;
            break;
        case 'm':
        case 'M':
            shift = 20;
            ++p;
            break;
        case 'g':
        case 'G':
            shift = 30;
            ++p;
            break;
        case 't':
        case 'T':
            shift = 40;
            ++p;
            break;
        default:
            break;
    }
    if (*p != '\0' || v == 0) return false;
    if (shift && v > (SIZE_MAX >> shift)) return false;
    *bytes = static_cast<size_t>(v) << shift;
    return true;
}

void load_config(bool warn_unknown) {
    const char* routine = "ishmem_init";

    const char* size_text = value_of("ISHMEM_SYMMETRIC_SIZE");
    if (!parse_size(size_text, &config.symmetric_size))
        fatal(routine, "ISHMEM_SYMMETRIC_SIZE=%s is not a positive size (bytes, or a number with suffix K, M, G or T)",
              size_text);
    config.symmetric_text = size_text;

    const char* debug_text = value_of("ISHMEM_DEBUG");
    if (!parse_bool(debug_text, &config.debug)) fatal(routine, "ISHMEM_DEBUG=%s is not 0 or 1", debug_text);
    // ishmemx_print reads it at every call (print.cpp); a typo stops the job here like any other.
    bool verbose_print = false;
    const char* verbose_text = value_of("ISHMEM_ENABLE_VERBOSE_PRINT");
    if (!parse_bool(verbose_text, &verbose_print))
        fatal(routine, "ISHMEM_ENABLE_VERBOSE_PRINT=%s is not 0 or 1", verbose_text);

    long v = 0;
    const char* teams_text = value_of("ISHMEM_TEAMS_MAX");
    if (!parse_long(teams_text, 3, 1 << 20, &v))
        fatal(routine, "ISHMEM_TEAMS_MAX=%s is not an integer in [3, %d]", teams_text, 1 << 20);
    config.teams_max = static_cast<int>(v);

    // "auto": with a core for every PE of the node, spin long (a wait ends soonest); with more PEs
    // than cores, yield soon, since the PE being waited for may need this very core.
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const bool oversubscribed = cpus > 0 && state.n_pes > cpus;
    auto spins = [&](const char* name, long spare, long crowded) -> unsigned {
        const char* text = value_of(name);
        if (strcmp(text, "auto") == 0) return static_cast<unsigned>(oversubscribed ? crowded : spare);
        if (!parse_long(text, 0, INT_MAX, &v))
            fatal(routine, "%s=%s is neither auto nor a non-negative integer", name, text);
        return static_cast<unsigned>(v);
    };
    config.barrier_spins = spins(tuning::barrier_spins.env, tuning::barrier_spins.value, 0);
    spin_limit = config.barrier_spins;
    config.wait_spins = spins(tuning::wait_spins.env, tuning::wait_spins.value, 0);
    wait_spin_limit = config.wait_spins;

    const char* rs_text = value_of("ISHMEM_REDUCE_SCATTER_MIN");
    if (!parse_size(rs_text, &reduce_scatter_min))
        fatal(routine, "ISHMEM_REDUCE_SCATTER_MIN=%s is not a byte count (a number, optionally with K, M or G)",
              rs_text);
    const char* chain_text = value_of("ISHMEM_CHAIN_MIN");
    if (!parse_long(chain_text, 2, 1 << 20, &v))
        fatal(routine, "ISHMEM_CHAIN_MIN=%s is not an integer of 2 or more", chain_text);
    chain_min = static_cast<int>(v);
    const char* scan_chain_text = value_of("ISHMEM_SCAN_CHAIN_MAX");
    if (!parse_size(scan_chain_text, &scan_chain_max))
        fatal(routine, "ISHMEM_SCAN_CHAIN_MAX=%s is not a positive byte count (a number, optionally with K, M or G)",
              scan_chain_text);
    for (auto [name, bytes] : {std::pair{"ISHMEM_GPU_COLL_BLOCK_BYTES", &config.gpu_coll_block_bytes},
                               std::pair{"ISHMEM_GPU_REDUCE_BLOCK_BYTES", &config.gpu_reduce_block_bytes}}) {
        const char* text = value_of(name);
        if (!parse_size(text, bytes))
            fatal(routine, "%s=%s is not a positive byte count (a number, optionally with K, M or G)", name, text);
    }
    // The ring's and the stage's limits and the relay's piece: 0 (off), or bytes up to a most.
    struct gpu_limit {
        const char* name;
        size_t* bytes;
        size_t most;
        const char* why;
    };
    for (const gpu_limit& l :
         {gpu_limit{"ISHMEM_GPU_STAGE_BYTES", &config.gpu_stage_bytes, 32768,
                    "32K (half the data a team's ring holds)"},
          gpu_limit{"ISHMEM_GPU_MEDIUM_BYTES", &config.gpu_medium_bytes, 262144, "256K (half a team's medium stage)"},
          gpu_limit{"ISHMEM_GPU_MEDIUM_GATHER_BYTES", &config.gpu_medium_gather_bytes, 262144,
                    "256K (half a team's medium stage)"},
          gpu_limit{"ISHMEM_GPU_MEDIUM_REDUCE_BYTES", &config.gpu_medium_reduce_bytes, 262144,
                    "256K (half a team's medium stage)"},
          gpu_limit{"ISHMEM_GPU_BROADCAST_PIECE_BYTES", &config.gpu_broadcast_piece, size_t{1} << 30, "1G"}}) {
        const char* text = value_of(l.name);
        if (strcmp(text, "0") == 0)
            *l.bytes = 0;
        else if (!parse_size(text, l.bytes) || *l.bytes > l.most)
            fatal(routine, "%s=%s is not 0 or a byte count of at most %s", l.name, text, l.why);
    }
    const char* part_text = value_of("ISHMEM_GPU_MEDIUM_PART_BYTES");
    if (!parse_size(part_text, &config.gpu_medium_part) || config.gpu_medium_part > 262144)
        fatal(routine, "ISHMEM_GPU_MEDIUM_PART_BYTES=%s is not a positive byte count of at most 256K", part_text);

    config.backend = value_of("ISHMEM_BACKEND");
    if (strcmp(config.backend, "auto") != 0 && strcmp(config.backend, "host") != 0 &&
        strcmp(config.backend, "cuda") != 0)
        fatal(routine, "ISHMEM_BACKEND=%s is not host, cuda or auto", config.backend);
    const char* device_text = value_of("ISHMEM_DEVICE");
    if (strcmp(device_text, "local") == 0)
        config.device = -1;
    else if (parse_long(device_text, 0, 1 << 16, &v))
        config.device = static_cast<int>(v);
    else
        fatal(routine, "ISHMEM_DEVICE=%s is neither local nor a device ordinal", device_text);

    // Read once here into globals: the fast paths test check_full and watch_calls, nothing else.
    const char* check_text = value_of("ISHMEM_CHECK");
    if (strcmp(check_text, "default") == 0)
        config.check_full = false;
    else if (strcmp(check_text, "full") == 0)
        config.check_full = true;
    else
        fatal(routine, "ISHMEM_CHECK=%s is neither default nor full", check_text);
    const char* hang_text = value_of("ISHMEM_HANG_TIMEOUT");
    errno = 0;
    char* hang_end = nullptr;
    const double hang = strtod(hang_text, &hang_end);
    if (errno != 0 || hang_end == hang_text || *hang_end != '\0' || !(hang >= 0) || hang > 1e6)
        fatal(routine, "ISHMEM_HANG_TIMEOUT=%s is not a number of seconds in [0, 1e6] (0: no watchdog)", hang_text);
    config.hang_timeout_ns = static_cast<uint64_t>(hang * 1e9);
    config.hang_timeout_text = hang_text;
    const char* globals_text = value_of("ISHMEM_SYMMETRIC_GLOBALS");
    if (!parse_bool(globals_text, &config.symmetric_globals))
        fatal(routine, "ISHMEM_SYMMETRIC_GLOBALS=%s is not 0 or 1", globals_text);
    const char* split_text = value_of("ISHMEM_NODE_SPLIT");
    config.node_split_text = split_text;
    config.node_split = config.node_cyclic = 0;
    if (strcmp(split_text, "pe") == 0)
        config.node_split = 1;
    else if (strncmp(split_text, "cyclic:", 7) == 0 && parse_long(split_text + 7, 1, 1 << 20, &v))
        config.node_cyclic = static_cast<int>(v);
    else if (parse_long(split_text, 1, 1 << 20, &v))
        config.node_split = static_cast<int>(v);
    else if (strcmp(split_text, "hostname") != 0)
        fatal(routine, "ISHMEM_NODE_SPLIT=%s is not hostname, pe, a positive number of PEs per node or cyclic:N",
              split_text);
    const char* early_text = value_of("ISHMEM_GPU_EARLY_LAUNCH");
    if (!parse_bool(early_text, &config.gpu_early_launch))
        fatal(routine, "ISHMEM_GPU_EARLY_LAUNCH=%s is not 0 or 1", early_text);
    const char* hier_text = value_of("ISHMEM_HIERARCHICAL");
    if (!parse_bool(hier_text, &config.hierarchical)) fatal(routine, "ISHMEM_HIERARCHICAL=%s is not 0 or 1", hier_text);
    const char* levels_text = value_of("ISHMEM_GPU_NODE_LEVELS");
    if (!parse_bool(levels_text, &config.gpu_node_levels))
        fatal(routine, "ISHMEM_GPU_NODE_LEVELS=%s is not 0 or 1", levels_text);
    const char* sleep_text = value_of("ISHMEM_MPI_PROGRESS_SLEEP_US");
    if (!parse_long(sleep_text, 0, 1000000, &config.progress_sleep_us))
        fatal(routine, "ISHMEM_MPI_PROGRESS_SLEEP_US=%s is not an integer in [0, 1000000]", sleep_text);
    const char* proxy_text = value_of("ISHMEM_REMOTE_PROXY");
    if (!parse_bool(proxy_text, &config.remote_proxy))
        fatal(routine, "ISHMEM_REMOTE_PROXY=%s is not 0 or 1", proxy_text);
    const char* rma_text = value_of("ISHMEM_MPI_RMA");
    if (strcmp(rma_text, "auto") == 0)
        config.mpi_rma = 0;
    else if (strcmp(rma_text, "windows") == 0)
        config.mpi_rma = 1;
    else if (strcmp(rma_text, "messages") == 0)
        config.mpi_rma = 2;
    else
        fatal(routine, "ISHMEM_MPI_RMA=%s is not auto, windows or messages", rma_text);
    const char* slots_text = value_of("ISHMEM_PROXY_SLOTS");
    if (!parse_long(slots_text, 4, 1 << 24, &config.proxy_slots))
        fatal(routine, "ISHMEM_PROXY_SLOTS=%s is not an integer in [4, 16777216]", slots_text);
    state.check_full = config.check_full;
    watch_calls = config.check_full || config.hang_timeout_ns > 0;

    if (!warn_unknown) return;
    for (char** e = environ; *e; ++e) {
        if (strncmp(*e, "ISHMEM_", 7) != 0) continue;
        const char* eq = strchr(*e, '=');
        size_t len = eq ? static_cast<size_t>(eq - *e) : strlen(*e);
        if (!is_known(*e, len)) warn(routine, "unknown environment variable %.*s ignored", static_cast<int>(len), *e);
    }
}

}  // namespace ishmemi

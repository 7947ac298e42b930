// Patterns for setup, exit and query. The test program has initialized the library before the tests
// run (tests/harness/main.cpp), so the init patterns check that a second initialization is harmless.
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "patterns/common.h"

namespace ishmem_testing::patterns {

namespace setup_detail {

// The launcher's word on who this PE is, when the job runs under ishmrun.
inline int env_int(const char* name, int fallback) {
    const char* s = std::getenv(name);
    return s && *s ? std::atoi(s) : fallback;
}

// The library still works as before: same PE number and count, initialized, and a symmetric
// array allocated before `reinit` is still the same object on the neighbour (put + barrier).
template <class Reinit> void expect_harmless_reinit(Reinit reinit, const char* what) {
    const world before;
    sym_array<long> x(2);
    ASSERT_TRUE(x);
    reinit();
    const world after;
    EXPECT_EQ(after.me, before.me) << what << " changed ishmem_my_pe()";
    EXPECT_EQ(after.n, before.n) << what << " changed ishmem_n_pes()";
    int initialized = 0;
    ishmemx_query_initialized(&initialized);
    EXPECT_EQ(initialized, 1) << "not initialized after " << what;
    ishmem_barrier_all();
    const long v = make_value<long>(before.me, 1);
    ishmem_long_put(x.get() + 1, &v, 1, before.right);
    ishmem_barrier_all();
    EXPECT_EQ(x.load(1), make_value<long>(before.left, 1)) << "symmetric data after " << what;
}

}  // namespace setup_detail

// init: a second ishmem_init (collective, as the first) changes nothing.
template <class Init> void setup_init(Init init) {
    setup_detail::expect_harmless_reinit([&] { init(); }, "a second ishmem_init");
}

// init_attr: likewise, with default attributes and with initialize_runtime off.
template <class InitAttr> void setup_init_attr(InitAttr init_attr) {
    local_vector<ishmemx_attr_t> attr(1);  // value-initialized: the default attributes
    setup_detail::expect_harmless_reinit([&] { init_attr(attr.data()); }, "ishmemx_init_attr after ishmem_init");
    local_vector<ishmemx_attr_t> attr2(1);
    attr2[0].initialize_runtime = false;
    setup_detail::expect_harmless_reinit([&] { init_attr(attr2.data()); },
                                         "ishmemx_init_attr (initialize_runtime = false) after ishmem_init");
}

// init_thread: returns 0 and provides ISHMEM_THREAD_MULTIPLE for every requested level.
template <class InitThread> void setup_init_thread(InitThread init_thread) {
    for (int requested :
         {ISHMEM_THREAD_SINGLE, ISHMEM_THREAD_FUNNELED, ISHMEM_THREAD_SERIALIZED, ISHMEM_THREAD_MULTIPLE}) {
        local_vector<int> out(1, -1);  // the adapter writes it
        int& provided = out[0];
        int rc = -1;
        setup_detail::expect_harmless_reinit([&] { rc = init_thread(requested, &provided); },
                                             "ishmem_init_thread after ishmem_init");
        EXPECT_EQ(rc, 0) << "ishmem_init_thread(" << requested << ")";
        EXPECT_EQ(provided, ISHMEM_THREAD_MULTIPLE) << "ishmem_init_thread(" << requested << ")";
    }
}

// query_thread: ISHMEM_THREAD_MULTIPLE.
template <class QueryThread> void setup_query_thread(QueryThread query_thread) {
    local_vector<int> out(1, -1);  // the adapter writes it
    int& provided = out[0];
    query_thread(&provided);
    EXPECT_EQ(provided, ISHMEM_THREAD_MULTIPLE);
}

// query_initialized: 1 while the tests run, from any thread.
template <class QueryInitialized> void setup_query_initialized(QueryInitialized query_initialized) {
    local_vector<int> out(2, -1);  // the adapter writes them
    int &initialized = out[0], &from_thread = out[1];
    query_initialized(&initialized);
    EXPECT_EQ(initialized, 1);
    std::thread([&] { query_initialized(&from_thread); }).join();
    EXPECT_EQ(from_thread, 1) << "from another thread";
}

// runtime_get_type: OPENSHMEM under ishmrun (the launcher's role) or MPI, the same on every call
// and on every PE.
template <class GetType> void setup_runtime_get_type(GetType get_type) {
    const ishmemx_runtime_type_t t = get_type();
    EXPECT_TRUE(t == ISHMEMX_RUNTIME_OPENSHMEM || t == ISHMEMX_RUNTIME_MPI) << "runtime type " << int(t);
    if (std::getenv("ISHMEMI_BOOT_FD")) {
        EXPECT_EQ(int(t), int(ISHMEMX_RUNTIME_OPENSHMEM)) << "under ishmrun";
    }
    EXPECT_EQ(int(get_type()), int(t)) << "second call";
    const std::vector<int> all = allgather(std::vector<int>{int(t)});
    for (int pe = 0; pe < static_cast<int>(all.size()); ++pe)
        EXPECT_EQ(all[pe], int(t)) << on_pe(pe) << " reports another runtime type";
}

// my_pe: in [0, n), what the launcher said, the same from another thread, and each number taken by
// exactly one PE (counted with atomics on PE 0).
template <class MyPe> void setup_my_pe(MyPe my_pe) {
    const int me = my_pe();
    const int n = ishmem_n_pes();
    ASSERT_GE(me, 0);
    ASSERT_LT(me, n);
    EXPECT_EQ(me, setup_detail::env_int("ISHMEMI_PE", me)) << "ishmrun's ISHMEMI_PE";
    int from_thread = -1;
    std::thread([&] { from_thread = my_pe(); }).join();
    EXPECT_EQ(from_thread, me) << "from another thread";
    sym_array<int> count(n);
    ASSERT_TRUE(count);
    ishmem_int_atomic_inc(count.get() + me, 0);
    ishmem_barrier_all();
    std::vector<int> counts(n);
    ishmem_getmem(counts.data(), count.get(), n * sizeof(int), 0);
    expect_elements(
        counts.data(), n, [](std::size_t) { return 1; }, "PEs that report number [j]");
}

// n_pes: at least 1, what the launcher said, and the same on every PE (each adds its n on PE 0:
// the sum is n * n).
template <class NPes> void setup_n_pes(NPes n_pes) {
    const int n = n_pes();
    ASSERT_GE(n, 1);
    EXPECT_EQ(n, setup_detail::env_int("ISHMEMI_NPES", n)) << "ishmrun's ISHMEMI_NPES";
    EXPECT_LT(ishmem_my_pe(), n);
    EXPECT_EQ(n_pes(), n) << "second call";
    sym_array<int> sum(1);
    ASSERT_TRUE(sum);
    ishmem_int_atomic_add(sum.get(), n, 0);
    ishmem_barrier_all();
    EXPECT_EQ(ishmem_int_g(sum.get(), 0), n * n) << "the PEs disagree on the number of PEs";
}

// ptr: non-null for every PE of this node, null for PEs of other nodes; through it this PE reads the
// other PE's value and writes into its copy; offsets inside an object map to the same offsets; a
// local (non-symmetric) address gives null.
template <class Ptr> void setup_ptr(Ptr ptr) {
    const world w;
    sym_array<long> x(8);
    ASSERT_TRUE(x);
    x.store(0, make_value<long>(w.me, 0));
    ishmem_barrier_all();
    for (int pe = 0; pe < w.n; ++pe) {
        auto* p = static_cast<long*>(ptr(x.get(), pe));
        if (!same_node(pe)) {
            EXPECT_EQ(p, nullptr) << "ishmem_ptr to " << on_pe(pe) << " of another node";
            continue;
        }
        ASSERT_NE(p, nullptr) << "ishmem_ptr to " << on_pe(pe);
        EXPECT_EQ(sym_load(p), make_value<long>(pe, 0)) << "read through ishmem_ptr to " << on_pe(pe);
        EXPECT_EQ(ptr(x.get() + 5, pe), static_cast<void*>(p + 5)) << "ishmem_ptr of an inner element on " << on_pe(pe);
    }
    EXPECT_EQ(ptr(x.get(), w.me), static_cast<void*>(x.get())) << "ishmem_ptr to the calling PE itself";
    auto* right = static_cast<long*>(ptr(x.get() + 1, w.right));
    if (same_node(w.right)) {
        ASSERT_NE(right, nullptr);
        sym_store(right, make_value<long>(w.me, 1));
    } else {
        ishmem_long_p(x.get() + 1, make_value<long>(w.me, 1), w.right);
    }
    ishmem_barrier_all();
    EXPECT_EQ(x.load(1), make_value<long>(w.left, 1)) << "store through ishmem_ptr by " << on_pe(w.left);
    long local = 0;  // its address is only compared, never dereferenced: it need not be a local_vector
    EXPECT_EQ(ptr(&local, w.right), nullptr) << "ishmem_ptr of a stack address";
}

// pe_accessible: 1 for every PE of the job, 0 for numbers outside it (a query, not an error).
template <class PeAccessible> void setup_pe_accessible(PeAccessible pe_accessible) {
    const world w;
    for (int pe = 0; pe < w.n; ++pe) EXPECT_EQ(pe_accessible(pe), 1) << on_pe(pe);
    for (int pe : {-1, w.n, w.n + 7}) EXPECT_EQ(pe_accessible(pe), 0) << "PE number " << pe;
}

// addr_accessible: 1 for heap addresses on every PE (inner elements too) and for the executable's
// globals where they are symmetric (ishmem_ptr maps this PE's own: the host backend), on every PE,
// those of other nodes too; 0 for a stack address and for PEs out of range.
inline long setup_accessible_global = 0;
template <class AddrAccessible> void setup_addr_accessible(AddrAccessible addr_accessible) {
    const world w;
    sym_array<long> x(8);
    ASSERT_TRUE(x);
    for (int pe = 0; pe < w.n; ++pe) {
        EXPECT_EQ(addr_accessible(x.get(), pe), 1) << "a heap block on " << on_pe(pe);
        EXPECT_EQ(addr_accessible(x.get() + 7, pe), 1) << "an inner element on " << on_pe(pe);
        EXPECT_EQ(addr_accessible(&setup_accessible_global, pe), ishmem_ptr(&setup_accessible_global, w.me) ? 1 : 0)
            << "a global on " << on_pe(pe) << ", symmetric where ishmem_ptr maps this PE's own";
    }
    long local = 0;  // only its address is used
    EXPECT_EQ(addr_accessible(&local, w.me), 0) << "a stack address";
    EXPECT_EQ(addr_accessible(x.get(), w.n), 0) << "a PE out of range";
    EXPECT_EQ(addr_accessible(x.get(), -1), 0) << "PE -1";
}

// info_get_version: the version in the header.
template <class GetVersion> void setup_info_get_version(GetVersion get_version) {
    local_vector<int> out(2, -1);  // the adapter writes them
    int &major = out[0], &minor = out[1];
    get_version(&major, &minor);
    EXPECT_EQ(major, ISHMEM_MAJOR_VERSION);
    EXPECT_EQ(minor, ISHMEM_MINOR_VERSION);
}

// info_get_name: ISHMEM_VENDOR_STRING, null-terminated within ISHMEM_MAX_NAME_LEN.
template <class GetName> void setup_info_get_name(GetName get_name) {
    local_vector<char> name(ISHMEM_MAX_NAME_LEN + 8, 'x');
    get_name(name.data());
    ASSERT_NE(std::memchr(name.data(), '\0', ISHMEM_MAX_NAME_LEN), nullptr) << "no terminating null";
    EXPECT_STREQ(name.data(), ISHMEM_VENDOR_STRING);
    for (std::size_t i = ISHMEM_MAX_NAME_LEN; i < name.size(); ++i) EXPECT_EQ(name[i], 'x') << "wrote past the buffer";
}

}  // namespace ishmem_testing::patterns

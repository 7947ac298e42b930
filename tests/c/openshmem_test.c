/* An OpenSHMEM 1.5 program in C11, unchanged but for what it checks: shmem.h, globals as remote
   targets, generic (_Generic) and typed calls, team collectives, wait/test, put-with-signal, AMOs.
     openshmem_test            the checks; PE 0 prints "openshmem: OK on N PEs"
     openshmem_test bad_<what>  one bad call (see run_bad): the message names the OpenSHMEM routine
     openshmem_test exit        the last PE calls shmem_global_exit(3) while the others are in a barrier */
#include <shmem.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

long counter;                /* bss */
int table[8] = {7, 7, 7, 7}; /* data */
uint64_t sig;
static double scratch[4]; /* a static: symmetric too */
static long lock;         /* a distributed lock: zero before first use */
long locked_count;        /* only changed under the lock, with a get and a put */
long ctx_words[8];
int a2a_source[4 * 3 * 2], a2a_dest[4 * 3 * 3]; /* up to 4 PEs, 3 elements, strides 2 and 3 */
int ctx_int;

static int run_checks(int me, int n) {
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* RMA into globals: typed, generic, p/g, strided */
    shmem_int_put(table + 4, (int[]){me, me + 1}, 2, right);
    double d[2] = {0.5 * me, 1.5};
    shmem_put(scratch, d, 2, right);
    shmem_long_p(&counter, 10 + me, right);
    shmem_barrier_all();
    CHECK_EQ(table[0], 7);
    CHECK_EQ(table[4], left);
    CHECK_EQ(table[5], left + 1);
    CHECK_EQ(scratch[0] * 2, left);
    CHECK_EQ(counter, 10 + left);
    CHECK_EQ(shmem_g(&counter, right), 10 + me);
    int strided[4];
    shmem_int_iget(strided, table, 1, 2, 4, me); /* table[0], [2], [4], [6] */
    CHECK_EQ(strided[2], left);

    /* AMOs on a global, generic and typed */
    shmem_barrier_all();
    counter = 0;
    shmem_barrier_all();
    shmem_atomic_inc(&counter, 0);
    long before = shmem_long_atomic_fetch_add(&counter, 2, 0);
    CHECK_EQ(before >= 0 && before < 3 * n, 1);
    shmem_barrier_all();
    if (me == 0) CHECK_EQ(counter, 3 * n);
    CHECK_EQ(shmem_atomic_compare_swap(&counter, -1, 5, 0), 3 * n); /* no swap: not -1 */

    /* put with signal; signal and wait families */
    shmem_barrier_all();
    long* heap = (long*)shmem_malloc(8 * sizeof(long));
    long mine = 100 + me;
    shmem_long_put_signal(heap, &mine, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    CHECK_EQ(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1), 1);
    CHECK_EQ(heap[0], 100 + left);
    CHECK_EQ(shmem_signal_fetch(&sig), 1);
    shmem_barrier_all();
    heap[1] = 0;
    heap[2] = 0;
    shmem_barrier_all();
    shmem_long_p(&heap[1 + me % 2], 1, right); /* one of two words set */
    int status[2] = {0, 0};
    size_t which = shmem_long_wait_until_any(heap + 1, 2, status, SHMEM_CMP_EQ, 1);
    CHECK_EQ(which == 0 || which == 1, 1);
    CHECK_WAIT(shmem_long_test(&heap[1 + left % 2], SHMEM_CMP_EQ, 1));
    shmem_wait_until(&heap[1 + left % 2], SHMEM_CMP_NE, 0); /* generic, an int literal */

    /* team collectives: world and a strided team of the even PEs */
    shmem_barrier_all();
    heap[3] = me + 1;
    shmem_barrier_all();
    CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, heap + 4, heap + 3, 1), 0);
    CHECK_EQ(heap[4], (long)n * (n + 1) / 2);
    CHECK_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, heap + 5, heap + 3, 1), 0);
    CHECK_EQ(heap[5], n);
    shmem_team_t evens;
    int nev = (n + 1) / 2;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nev, NULL, 0, &evens), 0);
    int* gathered = (int*)shmem_calloc(8, sizeof(int));
    int* one = (int*)shmem_malloc(sizeof(int));
    *one = 3 * me;
    shmem_sync_all();
    if (evens != SHMEM_TEAM_INVALID) {
        CHECK_EQ(shmem_team_my_pe(evens), me / 2);
        CHECK_EQ(shmem_team_n_pes(evens), nev);
        CHECK_EQ(shmem_int_fcollect(evens, gathered, one, 1), 0);
        for (int i = 0; i < nev; i++) CHECK_EQ(gathered[i], 6 * i);
        CHECK_EQ(shmem_broadcast(evens, gathered + 4, one, 1, nev - 1), 0);
        CHECK_EQ(gathered[4], 6 * (nev - 1));
        CHECK_EQ(shmem_team_translate_pe(evens, nev - 1, SHMEM_TEAM_WORLD), 2 * (nev - 1));
        CHECK_EQ(shmem_team_sync(evens), 0);
        shmem_team_destroy(evens);
    } else {
        CHECK_EQ(me % 2, 1);
    }

    /* query routines */
    int major, minor;
    shmem_info_get_version(&major, &minor);
    CHECK_EQ(major * 10 + minor, SHMEM_MAJOR_VERSION * 10 + SHMEM_MINOR_VERSION);
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    CHECK_EQ(strlen(name) > 0, 1);
    CHECK_EQ(shmem_ptr(heap, me) == heap, 1);
    shmem_barrier_all();
    shmem_free(one);
    shmem_free(gathered);
    shmem_free(heap);
    return check_failures;
}

/* Contexts: RMA, AMOs and put-with-signal through a world context and a team context, typed and
   generic; a team context numbers PEs in its team. */
static void run_contexts(int me, int n) {
    int right = (me + 1) % n, left = (me + n - 1) % n;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, &ctx), 0);
    CHECK_EQ(ctx != SHMEM_CTX_DEFAULT && ctx != SHMEM_CTX_INVALID, 1);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_ctx_get_team(ctx, &team), 0);
    CHECK_EQ(team, SHMEM_TEAM_WORLD);
    memset(ctx_words, 0, sizeof ctx_words);
    shmem_barrier_all();
    shmem_ctx_long_p(ctx, &ctx_words[0], 40 + me, right);
    long pair[2] = {50 + me, 60 + me};
    shmem_put(ctx, &ctx_words[1], pair, 2, right); /* generic with a context */
    shmem_ctx_long_atomic_add(ctx, &ctx_words[3], me + 1, 0);
    CHECK_EQ(shmem_atomic_fetch_inc(ctx, &ctx_words[4], 0) < n, 1); /* generic AMO with a context */
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK_EQ(ctx_words[0], 40 + left);
    CHECK_EQ(ctx_words[2], 60 + left);
    if (me == 0) CHECK_EQ(ctx_words[3], (long)n * (n + 1) / 2);
    if (me == 0) CHECK_EQ(ctx_words[4], n);
    CHECK_EQ(shmem_ctx_long_g(ctx, &ctx_words[1], right), 50 + me);
    long v = 70 + me;
    shmem_ctx_long_put_signal(ctx, &ctx_words[5], &v, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_fence(ctx);
    CHECK_EQ(shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 2), 2); /* run_checks left it at 1 */
    CHECK_EQ(ctx_words[5], 70 + left);
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
    shmem_ctx_destroy(SHMEM_CTX_INVALID); /* ignored */
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);

    /* a context over the odd PEs: its PE i is world PE 2i+1 */
    shmem_team_t odds = SHMEM_TEAM_INVALID;
    int nodd = n / 2;
    if (nodd == 0) return;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, nodd, NULL, 0, &odds), 0);
    shmem_ctx_t tctx = SHMEM_CTX_INVALID;
    if (odds != SHMEM_TEAM_INVALID) {
        int i = shmem_team_my_pe(odds);
        CHECK_EQ(shmem_team_create_ctx(odds, 0, &tctx), 0);
        CHECK_EQ(shmem_ctx_get_team(tctx, &team), 0);
        CHECK_EQ(team, odds);
        shmem_ctx_int_p(tctx, &ctx_int, 100 + me, (i + 1) % nodd);
        shmem_ctx_quiet(tctx);
    } else {
        CHECK_EQ(shmem_team_create_ctx(odds, 0, &tctx) != 0, 1); /* not a member: no context */
        CHECK_EQ(tctx, SHMEM_CTX_INVALID);
    }
    shmem_barrier_all();
    if (odds != SHMEM_TEAM_INVALID) {
        int i = shmem_team_my_pe(odds);
        CHECK_EQ(ctx_int, 100 + 2 * ((i + nodd - 1) % nodd) + 1);
        shmem_ctx_destroy(tctx);
        shmem_team_destroy(odds);
    }
}

/* Locks: every PE increments a global on PE 0 under the lock with a get and a put (no atomic), by
   set_lock and by test_lock; none of the increments is lost. Also the smaller 1.5 routines. */
static void run_locks_and_more(int me, int n) {
    const int rounds = 25;
    if (me == 0) locked_count = 0;
    shmem_barrier_all();
    for (int r = 0; r < rounds; r++) {
        shmem_set_lock(&lock);
        shmem_long_p(&locked_count, shmem_long_g(&locked_count, 0) + 1, 0);
        shmem_clear_lock(&lock);
        CHECK_WAIT(shmem_test_lock(&lock) == 0);
        shmem_long_p(&locked_count, shmem_long_g(&locked_count, 0) + 1, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK_EQ(locked_count, 2L * rounds * n);

    CHECK_EQ(shmem_pe_accessible((me + 1) % n), 1);
    CHECK_EQ(shmem_pe_accessible(n), 0);
    CHECK_EQ(shmem_addr_accessible(&locked_count, (me + 1) % n), 1);
    int on_stack = 0;
    CHECK_EQ(shmem_addr_accessible(&on_stack, me), 0);

    long* hinted = (long*)shmem_malloc_with_hints(16 * sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK_EQ(hinted != NULL, 1);
    hinted[0] = 0;
    shmem_barrier_all();
    shmem_long_atomic_inc(&hinted[0], 0);
    shmem_barrier_all();
    if (me == 0) CHECK_EQ(hinted[0], n);
    for (int i = 0; i < 16; i++) hinted[i] = 1000 * me + i;
    long* bigger = (long*)shmem_realloc(hinted, 4096 * sizeof(long));
    CHECK_EQ(bigger != NULL, 1);
    for (int i = 0; i < 16; i++) CHECK_EQ(bigger[i], 1000 * me + i);
    shmem_long_p(&bigger[4095], me, (me + 1) % n);
    shmem_barrier_all();
    CHECK_EQ(bigger[4095], (me + n - 1) % n);
    shmem_free(bigger);

    /* strided all-to-all over globals: element k of block j (stride 2) goes to PE j's block me (stride 3) */
    for (int i = 0; i < 4 * 3 * 2; i++) a2a_source[i] = 100 * me + i;
    for (int i = 0; i < 4 * 3 * 3; i++) a2a_dest[i] = -1;
    shmem_barrier_all();
    CHECK_EQ(shmem_int_alltoalls(SHMEM_TEAM_WORLD, a2a_dest, a2a_source, 3, 2, 3), 0);
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 3; k++) {
            CHECK_EQ(a2a_dest[(j * 3 + k) * 3], 100 * j + (me * 3 + k) * 2);
            CHECK_EQ(a2a_dest[(j * 3 + k) * 3 + 1], -1);
        }
    shmem_pcontrol(1);
    shmem_pcontrol(2, "a tool's own argument");
}

/* One bad call per mode; each stops the job (or, for a team, warns and returns nonzero) with a line
   that names the OpenSHMEM routine and constants. tests/c/CMakeLists.txt matches the lines. */
static int run_bad(const char* mode, int me, int n) {
    int on_stack = 0;
    long one = 1;
    if (strcmp(mode, "bad_pe") == 0) {
        shmem_int_p(table, 1, n);
    } else if (strcmp(mode, "bad_symmetric") == 0) {
        shmem_int_put(&on_stack, table, 1, 0);
    } else if (strcmp(mode, "bad_null") == 0) {
        shmem_int_put(table, NULL, 1, 0);
    } else if (strcmp(mode, "bad_cmp") == 0) {
        shmem_int_wait_until(table, 99, 0);
    } else if (strcmp(mode, "bad_sig_op") == 0) {
        shmem_long_put_signal(&counter, &one, 1, &sig, 1, 7, 0);
    } else if (strcmp(mode, "bad_stride") == 0) {
        shmem_int_iput(table, table, 0, 1, 2, 0);
    } else if (strcmp(mode, "bad_aligned") == 0) {
        shmem_long_atomic_inc((long*)((char*)&counter + 1), 0);
    } else if (strcmp(mode, "bad_align") == 0) {
        shmem_align(48, 64);
    } else if (strcmp(mode, "bad_root") == 0) {
        if (shmem_int_broadcast(SHMEM_TEAM_WORLD, a2a_dest, a2a_source, 1, n) == 0) return 1;
    } else if (strcmp(mode, "bad_overlap") == 0) {
        if (shmem_int_sum_reduce(SHMEM_TEAM_WORLD, a2a_dest + 1, a2a_dest, 4) == 0) return 1;
    } else if (strcmp(mode, "bad_options") == 0) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(1L << 8, &ctx) == 0 || ctx != SHMEM_CTX_INVALID) return 1;
    } else if (strcmp(mode, "bad_team") == 0) {
        if (shmem_team_sync(SHMEM_TEAM_INVALID) == 0) return 1;
    } else if (strcmp(mode, "bad_parent") == 0) { /* a bad parent handle on PE 1 only: all fail alike */
        shmem_team_t t = SHMEM_TEAM_WORLD;
        if (shmem_team_split_strided(me == 1 ? (shmem_team_t)77 : SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t) == 0 ||
            t != SHMEM_TEAM_INVALID)
            return 1;
    } else if (strcmp(mode, "bad_ctx_pe") == 0) {
        shmem_ctx_t ctx;
        shmem_ctx_create(0, &ctx);
        shmem_ctx_int_p(ctx, table, 1, n);
    } else if (strcmp(mode, "bad_clear") == 0) {
        if (me == 0) shmem_clear_lock(&lock);
        shmem_barrier_all();
    } else {
        fprintf(stderr, "openshmem_test: unknown mode %s\n", mode);
        return 1;
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 1 && strcmp(argv[1], "bad_init") == 0) shmem_int_p(table, 1, 0); /* before shmem_init */
    int provided = -1;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    int me = shmem_my_pe(), n = shmem_n_pes();
    check_my_pe = me;
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    if (argc > 1 && strncmp(argv[1], "bad_", 4) == 0) return run_bad(argv[1], me, n);
    if (argc > 1 && strcmp(argv[1], "start_only") == 0) { /* starts and stops: any backend */
        shmem_barrier_all();
        shmem_finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "exit") == 0) {
        if (me == n - 1) {
            if (n > 1) sleep(1); /* let the others reach the barrier */
            shmem_global_exit(3);
        }
        shmem_barrier_all();
        if (n == 1) return 4; /* not reached: global_exit does not return */
        for (;;) shmem_barrier_all();
    }
    run_checks(me, n);
    run_contexts(me, n);
    run_locks_and_more(me, n);
    int failed = check_failures;
    static int total; /* a static as the reduction's target */
    total = failed;
    shmem_barrier_all();
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &total, &total, 1);
    if (me == 0 && total == 0) printf("openshmem: OK on %d PEs\n", n);
    shmem_finalize();
    return total != 0;
}

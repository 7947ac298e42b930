/* A C11 program written against the OpenSHMEM API as it was before 1.5: start_pes, _my_pe,
   shmalloc, the active-set collectives with pSync and pWrk over sets that leave PEs out (strides
   1, 2 and 4, odd sizes), the to_all reductions (long double and complex among them), the old
   atomic and wait names, the cache no-ops; and the long double and complex routines of 1.5.
   PE 0 prints "openshmem_deprecated: OK on N PEs". Blocking waits are bounded by the test's
   ISHMEM_HANG_TIMEOUT (tests/c/CMakeLists.txt).
     openshmem_deprecated_test bad_<what>   one bad call (see run_bad)
     openshmem_deprecated_test hang_<what>  waits that never end, for ISHMEM_HANG_TIMEOUT (run_bad) */
#include <complex.h>
#include <shmem.h>
#include <string.h>

#include "check.h"

#define MAXN 8 /* elements per PE in the collectives */
#define MAXPE 4

long pSync[SHMEM_REDUCE_SYNC_SIZE];
long pSync2[_SHMEM_BCAST_SYNC_SIZE];
int i_src[MAXN * MAXPE], i_dst[MAXN * MAXPE * 2];
long l_src[MAXN * MAXPE], l_dst[MAXN * MAXPE * 2];
short s_src[MAXN], s_dst[MAXN], s_wrk[MAXN + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
int i_wrk[MAXN + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
double d_src[MAXN], d_dst[MAXN], d_wrk[MAXN + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
long double ld_src[MAXN * MAXPE], ld_dst[MAXN * MAXPE * 2], ld_wrk[MAXN + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
double _Complex cd_src[MAXN], cd_dst[MAXN], cd_wrk[MAXN + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
float _Complex cf_src[MAXN], cf_dst[MAXN], cf_wrk[MAXN + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
int counter, flag;
long lcounter;
short sflag;
unsigned short usflag;

/* The active-set collectives over PE_start, 2^log_stride, PE_size: members check values, the
   others take no part. */
static void active_set(int me, int start, int log_stride, int size) {
    const int stride = 1 << log_stride, off = me - start;
    if (off < 0 || off % stride != 0 || off / stride >= size) return;
    const int idx = off / stride;
    int k;

    shmem_barrier(start, log_stride, size, pSync);
    shmem_sync(start, log_stride, size, pSync);

    /* broadcast from the set's last member: the root's dest stays as it was */
    for (k = 0; k < MAXN; ++k) {
        i_src[k] = 100 * idx + k;
        i_dst[k] = -1;
        l_src[k] = 1000L * idx + k;
        l_dst[k] = -1;
    }
    shmem_broadcast32(i_dst, i_src, MAXN, size - 1, start, log_stride, size, pSync);
    shmem_broadcast64(l_dst, l_src, 3, size - 1, start, log_stride, size, pSync2);
    for (k = 0; k < MAXN; ++k) CHECK_EQ(i_dst[k], idx == size - 1 ? -1 : 100 * (size - 1) + k);
    for (k = 0; k < 3; ++k) CHECK_EQ(l_dst[k], idx == size - 1 ? -1 : 1000L * (size - 1) + k);
    CHECK_EQ(l_dst[3], -1);

    /* collect: member i contributes i + 1 elements */
    for (k = 0; k < MAXN * MAXPE; ++k) i_src[k] = 10 * idx + k;
    shmem_collect32(i_dst, i_src, (size_t)idx + 1, start, log_stride, size, pSync);
    {
        int pos = 0, i;
        for (i = 0; i < size; ++i)
            for (k = 0; k <= i; ++k) CHECK_EQ(i_dst[pos++], 10 * i + k);
    }
    for (k = 0; k < 3; ++k) l_src[k] = 7L * idx + k;
    shmem_collect64(l_dst, l_src, 3, start, log_stride, size, pSync);
    for (k = 0; k < 3 * size; ++k) CHECK_EQ(l_dst[k], 7L * (k / 3) + k % 3);

    /* fcollect */
    shmem_fcollect32(i_dst, i_src, 2, start, log_stride, size, pSync);
    for (k = 0; k < 2 * size; ++k) CHECK_EQ(i_dst[k], 10 * (k / 2) + k % 2);
    shmem_fcollect64(l_dst, l_src, 2, start, log_stride, size, pSync);
    for (k = 0; k < 2 * size; ++k) CHECK_EQ(l_dst[k], 7L * (k / 2) + k % 2);

    /* alltoall: block j of member i is 100 i + 10 j + e */
    for (k = 0; k < 2 * size; ++k) {
        i_src[k] = 100 * idx + 10 * (k / 2) + k % 2;
        l_src[k] = i_src[k];
    }
    shmem_alltoall32(i_dst, i_src, 2, start, log_stride, size, pSync);
    shmem_alltoall64(l_dst, l_src, 2, start, log_stride, size, pSync);
    for (k = 0; k < 2 * size; ++k) {
        CHECK_EQ(i_dst[k], 100 * (k / 2) + 10 * idx + k % 2);
        CHECK_EQ(l_dst[k], 100 * (k / 2) + 10 * idx + k % 2);
    }
    /* alltoalls: source elements 2 apart, dest elements 3 apart, one element per block */
    for (k = 0; k < 2 * size; ++k) i_src[k] = (k % 2) ? -7 : 100 * idx + k / 2;
    for (k = 0; k < 3 * size; ++k) i_dst[k] = -5;
    shmem_alltoalls32(i_dst, i_src, 3, 2, 1, start, log_stride, size, pSync);
    for (k = 0; k < 3 * size; ++k) CHECK_EQ(i_dst[k], (k % 3) ? -5 : 100 * (k / 3) + idx);

    /* to_all reductions; dest is source for the int sum */
    for (k = 0; k < MAXN; ++k) {
        i_src[k] = idx + k + 1;
        s_src[k] = (short)(idx % 2 ? 2 : 1);
        d_src[k] = 0.5 * idx + k;
        ld_src[k] = (long double)idx + 0.25L * k;
        cd_src[k] = (double)(idx + 1) + 1.0 * I;
        cf_src[k] = (float)idx + (float)k * I;
    }
    int sum_idx = size * (size - 1) / 2;
    shmem_int_max_to_all(i_dst, i_src, MAXN, start, log_stride, size, i_wrk, pSync);
    for (k = 0; k < MAXN; ++k) CHECK_EQ(i_dst[k], size + k);
    shmem_int_min_to_all(i_dst, i_src, MAXN, start, log_stride, size, i_wrk, pSync2);
    for (k = 0; k < MAXN; ++k) CHECK_EQ(i_dst[k], 1 + k);
    shmem_int_or_to_all(i_dst, i_src, 1, start, log_stride, size, i_wrk, pSync);
    {
        int want_or = 0, want_xor = 0, want_and = -1, i;
        for (i = 0; i < size; ++i) {
            want_or |= i + 1;
            want_xor ^= i + 1;
            want_and &= i + 1;
        }
        CHECK_EQ(i_dst[0], want_or);
        shmem_int_xor_to_all(i_dst, i_src, 1, start, log_stride, size, i_wrk, pSync);
        CHECK_EQ(i_dst[0], want_xor);
        shmem_int_and_to_all(i_dst, i_src, 1, start, log_stride, size, i_wrk, pSync);
        CHECK_EQ(i_dst[0], want_and);
    }
    shmem_int_sum_to_all(i_src, i_src, MAXN, start, log_stride, size, i_wrk, pSync);
    for (k = 0; k < MAXN; ++k) CHECK_EQ(i_src[k], sum_idx + size * (k + 1));
    shmem_short_prod_to_all(s_dst, s_src, MAXN, start, log_stride, size, s_wrk, pSync);
    CHECK_EQ(s_dst[MAXN - 1], 1 << (size / 2));
    shmem_double_sum_to_all(d_dst, d_src, MAXN, start, log_stride, size, d_wrk, pSync);
    CHECK_EQ(d_dst[3] * 2, sum_idx + 2 * 3 * size);
    shmem_longdouble_max_to_all(ld_dst, ld_src, MAXN, start, log_stride, size, ld_wrk, pSync);
    CHECK_EQ(ld_dst[2] * 4, 4 * (size - 1) + 2);
    shmem_longdouble_sum_to_all(ld_dst, ld_src, MAXN, start, log_stride, size, ld_wrk, pSync2);
    CHECK_EQ(ld_dst[4] * 4, 4 * sum_idx + 4 * size);
    /* complex: prod of (i + 1 + 1i) over the set, against a product computed here */
    shmem_complexd_prod_to_all(cd_dst, cd_src, MAXN, start, log_stride, size, cd_wrk, pSync);
    {
        double _Complex want = 1.0;
        int i;
        for (i = 0; i < size; ++i) want *= (double)(i + 1) + 1.0 * I;
        CHECK_EQ(creal(cd_dst[5]), creal(want));
        CHECK_EQ(cimag(cd_dst[5]), cimag(want));
    }
    shmem_complexf_sum_to_all(cf_dst, cf_src, MAXN, start, log_stride, size, cf_wrk, pSync);
    CHECK_EQ(crealf(cf_dst[3]), sum_idx);
    CHECK_EQ(cimagf(cf_dst[3]), 3 * size);
    for (k = 0; k < SHMEM_REDUCE_SYNC_SIZE; ++k) CHECK_EQ(pSync[k], SHMEM_SYNC_VALUE); /* restored */
}

/* The long double and complex routines of OpenSHMEM 1.5 over the world team. */
static void long_double_and_complex(int me, int n) {
    int k, right = (me + 1) % n, left = (me + n - 1) % n;
    for (k = 0; k < MAXN; ++k) {
        ld_src[k] = me + 0.5L * k;
        ld_dst[k] = -1;
    }
    shmem_barrier_all();
    shmem_longdouble_put(ld_dst, ld_src, 3, right);
    shmem_longdouble_p(ld_dst + 3, 1.0L / 3 + me, right);
    shmem_quiet();
    shmem_barrier_all();
    for (k = 0; k < 3; ++k) CHECK_EQ(ld_dst[k] * 2, 2 * left + k);
    CHECK_EQ(ld_dst[3] == 1.0L / 3 + left, 1);
    CHECK_EQ(shmem_longdouble_g(ld_src + 2, right) * 2, 2 * right + 2);
    long double got[4] = {0};
    shmem_get(got, ld_src, 2, left); /* generic over long double */
    CHECK_EQ(got[1] * 2, 2 * left + 1);
    shmem_longdouble_iget(got, ld_src, 1, 2, 3, right); /* ld_src[0], [2], [4] */
    CHECK_EQ(got[2] * 2, 2 * right + 4);
    shmem_barrier_all();

    shmem_longdouble_sum_reduce(SHMEM_TEAM_WORLD, ld_dst, ld_src, MAXN);
    CHECK_EQ(ld_dst[1] * 2, n * (n - 1) + n);
    shmem_max_reduce(SHMEM_TEAM_WORLD, ld_dst, ld_src, MAXN); /* generic */
    CHECK_EQ(ld_dst[1] * 2, 2 * (n - 1) + 1);
    for (k = 0; k < MAXN; ++k) {
        cd_src[k] = 1.0 + (double)me * I;
        cf_src[k] = (float)(me + 1);
    }
    shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, cd_dst, cd_src, MAXN);
    CHECK_EQ(creal(cd_dst[0]), n);
    CHECK_EQ(cimag(cd_dst[0]), n * (n - 1) / 2);
    shmem_prod_reduce(SHMEM_TEAM_WORLD, cf_dst, cf_src, MAXN);
    {
        int f = 1, i;
        for (i = 1; i <= n; ++i) f *= i;
        CHECK_EQ(crealf(cf_dst[MAXN - 1]), f);
    }
    ld_src[0] = 42.5L + me;
    shmem_longdouble_broadcast(SHMEM_TEAM_WORLD, ld_dst, ld_src, 1, n - 1);
    CHECK_EQ(ld_dst[0] * 2, 2 * (42.5L + n - 1));
    shmem_longdouble_fcollect(SHMEM_TEAM_WORLD, ld_dst, ld_src, 1);
    for (k = 0; k < n; ++k) CHECK_EQ(ld_dst[k] * 2, 2 * (42.5L + k));
    for (k = 0; k < 2 * n; ++k) ld_src[k] = (k % 2) ? -1 : 10 * me + k / 2;
    shmem_longdouble_alltoalls(SHMEM_TEAM_WORLD, ld_dst, ld_src, 1, 2, 1);
    for (k = 0; k < n; ++k) CHECK_EQ(ld_dst[k], 10 * k + me);
}

/* One bad call on every PE; the message names the routine called, also where it forwards to
   another (the old atomic names, the long double RMA). */
static void run_bad(const char* what, int me, int n) {
    long local_sync[SHMEM_BARRIER_SYNC_SIZE] = {0};
    long double local_ld[2] = {0};
    if (!strcmp(what, "bad_set")) /* PE 1 calls for the set {0} */
        shmem_barrier(0, 0, me == 1 ? 1 : n, pSync);
    else if (!strcmp(what, "bad_psync"))
        shmem_barrier(0, 0, n, local_sync);
    else if (!strcmp(what, "bad_dest"))
        shmem_broadcast32(local_sync, i_src, 1, 0, 0, 0, n, pSync);
    else if (!strcmp(what, "bad_finc"))
        shmem_long_finc(&lcounter, n);
    else if (!strcmp(what, "bad_swap")) /* the untyped name */
        shmem_swap(&lcounter, 1L, n);
    else if (!strcmp(what, "bad_fadd_freed")) { /* ISHMEM_CHECK=full */
        long* p = (long*)shmalloc(4 * sizeof(long));
        shfree(p);
        shmem_long_fadd(p, 1, me);
    } else if (!strcmp(what, "bad_ld_put"))
        shmem_longdouble_put(local_ld, ld_src, 2, me);
    else if (!strcmp(what, "bad_ld_get_overflow"))
        shmem_longdouble_get(ld_dst, ld_src, SIZE_MAX / 16 + 2, me);
    else if (!strcmp(what, "bad_ld_ctx_p"))
        shmem_ctx_longdouble_p(SHMEM_CTX_DEFAULT, ld_dst, 1.0L, n);
    else if (!strcmp(what, "bad_ld_iput_past")) { /* ISHMEM_CHECK=full */
        long double* p = (long double*)shmalloc(2 * sizeof(long double));
        shmem_longdouble_iput(p, ld_src, 1, 1, 4, me);
    } else if (!strcmp(what, "hang_wait")) /* every PE, in the old shmem_TYPENAME_wait */
        shmem_long_wait(&lcounter, 0);
    else if (!strcmp(what, "hang_wait_until")) { /* PE 0 in an int32 wait, the others in a long wait */
        static int32_t flag32;
        if (me == 0)
            shmem_int32_wait_until(&flag32, SHMEM_CMP_EQ, 5);
        else
            shmem_wait_until(&lcounter, SHMEM_CMP_GT, 7L);
    }
}

int main(int argc, char** argv) {
    start_pes(0);
    const int me = _my_pe(), n = _num_pes();
    check_my_pe = me;
    int k;
    CHECK_EQ(me, shmem_my_pe());
    CHECK_EQ(n, shmem_n_pes());
    for (k = 0; k < SHMEM_REDUCE_SYNC_SIZE; ++k) pSync[k] = SHMEM_SYNC_VALUE;
    for (k = 0; k < _SHMEM_BCAST_SYNC_SIZE; ++k) pSync2[k] = _SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    if (argc > 1) {
        run_bad(argv[1], me, n);
        return 0;
    }

    /* memory under the old names */
    int* a = (int*)shmalloc(4 * sizeof(int));
    for (k = 0; k < 4; ++k) a[k] = me + k;
    a = (int*)shrealloc(a, 64 * sizeof(int));
    for (k = 0; k < 4; ++k) CHECK_EQ(a[k], me + k);
    long* b = (long*)shmemalign(256, 16 * sizeof(long));
    CHECK_EQ((uintptr_t)b % 256, 0);
    b[0] = me;
    shmem_barrier_all();
    CHECK_EQ(shmem_long_g(b, (me + 1) % n), (me + 1) % n);
    shmem_barrier_all();
    shfree(b);
    shfree(a);

    /* every active set of up to 4 PEs with strides 1, 2 and 4 */
    int start, log_stride, size;
    for (log_stride = 0; log_stride <= 2; ++log_stride)
        for (start = 0; start < n; ++start)
            for (size = 1; start + (size - 1) * (1 << log_stride) < n; ++size) {
                active_set(me, start, log_stride, size);
                shmem_barrier_all(); /* the next set may reuse pSync */
            }
    shmem_sync(SHMEM_TEAM_WORLD); /* the 1.5 team form of the same name */

    /* old atomic names, typed and generic */
    shmem_int_fadd(&counter, 2, 0);
    shmem_int_add(&counter, 1, 0);
    shmem_long_finc(&lcounter, 0);
    shmem_inc(&lcounter, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(counter, 3 * n);
        CHECK_EQ(lcounter, 2 * n);
        CHECK_EQ(shmem_int_cswap(&counter, 3 * n, -1, 0), 3 * n);
        CHECK_EQ(shmem_swap(&counter, 5, 0), -1);
        CHECK_EQ(shmem_int_fetch(&counter, 0), 5);
        shmem_int_set(&counter, 6, 0);
        CHECK_EQ(shmem_fetch(&counter, 0), 6);
    }
    shmem_barrier_all();

    /* waits: PE 0 writes to the last PE, which waits */
    if (me == 0) {
        shmem_int_p(&flag, 9, n - 1);
        shmem_short_p(&sflag, 7, n - 1);
        shmem_putmem(&usflag, &(unsigned short){65000}, sizeof usflag, n - 1);
        shmem_quiet();
    }
    if (me == n - 1) {
        shmem_int_wait(&flag, 0);
        CHECK_EQ(flag, 9);
        shmem_short_wait_until(&sflag, SHMEM_CMP_EQ, 7);
        shmem_wait(&flag, 0); /* the deprecated untyped name */
        shmem_ushort_wait_until(&usflag, SHMEM_CMP_GT, 60000);
        CHECK_EQ(shmem_short_test(&sflag, SHMEM_CMP_EQ, 7), 1);
        CHECK_EQ(shmem_ushort_test(&usflag, SHMEM_CMP_LT, 60000), 0);
        shmem_short_p(&sflag, -3, 0); /* the answer, which PE 0 polls for with test */
    }
    if (me == 0) CHECK_WAIT(shmem_short_test(&sflag, SHMEM_CMP_EQ, -3));
    shmem_barrier_all();

    long_double_and_complex(me, n);

    shmem_clear_cache_inv();
    shmem_set_cache_inv();
    shmem_clear_cache_line_inv(&flag);
    shmem_set_cache_line_inv(&flag);
    shmem_udcflush();
    shmem_udcflush_line(&flag);

    shmem_barrier_all();
    int failed = check_failures;
    int any = 0;
    shmem_barrier_all();
    for (k = 0; k < n; ++k) any += shmem_int_g(&check_failures, k);
    if (me == 0 && any == 0 && failed == 0) printf("openshmem_deprecated: OK on %d PEs\n", n);
    return check_failures ? 1 : 0; /* start_pes: finalized at exit */
}

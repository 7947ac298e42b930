/* ishmem.h and ishmemx.h from C11: the C symbols, the generic selections (untyped names), the
   overloads picked by argument count (team collectives, ishmemx_print), globals as targets. Run on
   1-4 PEs; prints "c_api: OK" on PE 0 when every check passed on every PE. */
#include <ishmem.h>
#include <ishmemx.h>
#include <string.h>

#include "check.h"

static long counter;         /* bss: a symmetric global */
static int ring[8] = {1, 2}; /* data */
static uint64_t flag;

int main(void) {
    ishmem_init();
    int me = ishmem_my_pe(), n = ishmem_n_pes();
    check_my_pe = me;
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* typed and untyped RMA into the heap and into a global */
    long* buf = (long*)ishmem_malloc(16 * sizeof(long));
    long src[4] = {me, me + 10, me + 20, me + 30};
    ishmem_long_put(buf, src, 4, right);
    ishmem_put(buf + 4, src, 4, right); /* _Generic: long */
    int isrc[2] = {100 + me, 200 + me};
    ishmem_put(ring + 2, isrc, 2, right); /* _Generic: int, a data-segment target */
    ishmem_p(&counter, 7 + me, right);    /* int literal converted to long */
    ishmem_barrier_all();
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(buf[i], left + 10 * i);
        CHECK_EQ(buf[4 + i], left + 10 * i);
    }
    CHECK_EQ(ring[0], 1);
    CHECK_EQ(ring[2], 100 + left);
    CHECK_EQ(ring[3], 200 + left);
    CHECK_EQ(counter, 7 + left);
    CHECK_EQ(ishmem_g(&counter, right), 7 + me);
    const long* csrc = buf; /* a const pointer selects the same routine */
    CHECK_EQ(ishmem_g(csrc, me), left);

    /* AMOs, generic and typed, on a global */
    ishmem_barrier_all();
    counter = 0;
    ishmem_barrier_all();
    long old = ishmem_atomic_fetch_add(&counter, 1, 0);
    CHECK_EQ(old >= 0 && old < 3 * n, 1); /* others may have added 1 or 2 before */
    ishmem_long_atomic_add(&counter, 2, 0);
    ishmem_barrier_all();
    if (me == 0) CHECK_EQ(counter, 3 * n);
    size_t sz = ishmem_atomic_fetch((size_t*)(void*)&counter, 0); /* size_t: unsigned long */
    if (me == 0) CHECK_EQ(sz, 3 * n);

    /* put with signal into a global flag; wait and test with the untyped names */
    ishmem_barrier_all();
    ishmem_long_put_signal(buf + 8, src, 1, &flag, 1, ISHMEM_SIGNAL_ADD, right);
    CHECK_EQ(ishmem_signal_wait_until(&flag, ISHMEM_CMP_GE, 1), 1);
    CHECK_EQ(buf[8], left);
    CHECK_WAIT(ishmem_test(&counter, ISHMEM_CMP_NE, -1));
    ishmem_wait_until(&flag, ISHMEM_CMP_EQ, 1);

    /* collectives: world and team forms under one name, typed and untyped */
    ishmem_barrier_all();
    long* red = buf + 12;
    red[0] = me + 1;
    red[1] = 1;
    ishmem_barrier_all();
    CHECK_EQ(ishmem_sum_reduce(red, red, 2), 0); /* world, generic */
    CHECK_EQ(red[0], (long)n * (n + 1) / 2);
    CHECK_EQ(red[1], n);
    red[0] = me;
    ishmem_barrier_all();
    CHECK_EQ(ishmem_long_max_reduce(ISHMEM_TEAM_WORLD, red, red, 1), 0); /* team, typed */
    CHECK_EQ(red[0], n - 1);
    buf[0] = 1000 + me;
    ishmem_barrier_all();
    CHECK_EQ(ishmem_broadcast(ISHMEM_TEAM_WORLD, buf + 1, buf, 1, n - 1), 0); /* team, generic */
    CHECK_EQ(ishmem_long_broadcast(buf + 2, buf, 1, 0), 0);                   /* world, typed */
    CHECK_EQ(buf[1], 1000 + n - 1);
    CHECK_EQ(buf[2], 1000);
    CHECK_EQ(ishmem_team_long_broadcast(ISHMEM_TEAM_WORLD, buf + 3, buf, 1, 0), 0); /* the C symbol */
    CHECK_EQ(buf[3], 1000);

    /* teams: split a strided team, fcollect over it */
    ishmem_team_t evens;
    int nev = (n + 1) / 2;
    CHECK_EQ(ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, nev, NULL, 0, &evens), 0);
    if (me % 2 == 0)
        CHECK_EQ(ishmem_team_my_pe(evens), me / 2);
    else
        CHECK_EQ(evens, ISHMEM_TEAM_INVALID);
    int* gathered = (int*)ishmem_calloc((size_t)n, sizeof(int));
    int mine = 5 * me;
    int* one = (int*)ishmem_malloc(sizeof(int));
    *one = mine;
    ishmem_barrier_all();
    if (me % 2 == 0) {
        CHECK_EQ(ishmem_fcollect(evens, gathered, one, 1), 0);
        for (int i = 0; i < nev; i++) CHECK_EQ(gathered[i], 10 * i);
        ishmem_team_destroy(evens);
    }

    /* ishmemx_print's overloads, by argument count */
    ishmemx_print("c_api: debug line");
    ishmemx_print("c_api: a warning line from C", WARNING);

    char name[ISHMEM_MAX_NAME_LEN];
    ishmem_info_get_name(name);
    CHECK_EQ(strlen(name) > 0, 1);

    ishmem_barrier_all();
    ishmem_free(one);
    ishmem_free(gathered);
    ishmem_free(buf);
    int failed = check_failures;
    int* all_failed = (int*)ishmem_malloc(sizeof(int));
    *all_failed = failed;
    ishmem_barrier_all();
    ishmem_int_sum_reduce(all_failed, all_failed, 1);
    if (me == 0 && *all_failed == 0) printf("c_api: OK on %d PEs\n", n);
    int status = *all_failed != 0;
    ishmem_free(all_failed);
    ishmem_finalize();
    return status;
}

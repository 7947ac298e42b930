// Programs with bugs that only ISHMEM_CHECK=full or ISHMEM_HANG_TIMEOUT catch (check_full.sh runs them).
//   checked past_allocation     putmem of 40 bytes into a 32-byte allocation (stays inside the heap)
//   checked freed               a put to a block that was freed
//   checked nelems              ishmem_int_sum_reduce with nelems 8 on PE 1, 16 on the others
//   checked root                ishmem_int_broadcast with root 0 on PE 1, root 1 on the others
//   checked barrier_vs_sync     ishmem_barrier_all on PE 1, ishmem_sync_all on the others
//   checked type                ishmem_int_sum_reduce on PE 1, ishmem_long_sum_reduce on the others
//   checked other_team          PE 1 syncs a team of PEs {0, 1}, the others call ishmem_barrier_all
//   checked split_args          ishmem_team_split_strided with start 1 on PE 1, start 0 on the others
//   checked split_kind          ishmem_team_split_2d on PE 1, ishmem_team_split_strided on the others
//   checked stuck               PE 1 waits for a flag nobody sets; the others wait in ishmem_barrier_all
//   checked stuck_test          PE 1 calls ishmem_int_test in a loop that never ends; the others barrier
//   checked malloc_size         ishmem_malloc of 64 bytes on PE 1, 128 on the others
//   checked free_other          PE 1 frees a block, the others another one
//   checked split_one_bad       ishmem_team_split_strided with size 0 on PE 1 only: every PE gets -1
//   checked split_2d_one_bad    ishmem_team_split_2d with xrange 0 on PE 1 only: every PE gets -1
//   checked split_bad_parent    split_strided of a team whose handle is garbage on PE 1 (valid on the
//                               others, PE 0 late): every PE gets -1; then a good split of the team works
//   checked split_freed_parent  the same with the team destroyed on PE 1 only, and split_2d
//   checked overflow_put        ishmem_long_put of SIZE_MAX / 8 + 2 elements (the byte count wraps to 8)
//   checked overflow_iput       ishmem_long_iput with dst 2^61: its extent in bytes wraps to 8
//   checked overflow_alltoall   ishmem_long_alltoall whose dest bytes (nelems x PEs x 8) wrap to 0
//   checked ok                  correct collectives and RMA, also on global variables: must pass under full mode
#include <ishmem.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {
int global_buf[16];  // symmetric on the host backend; full mode accepts any range inside data and bss
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "ok";
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    int* a = static_cast<int*>(ishmem_calloc(8, sizeof(int)));      // 32 bytes
    long* b = static_cast<long*>(ishmem_calloc(64, sizeof(long)));  // 512 bytes, right after a
    int* dst = static_cast<int*>(ishmem_calloc(64, sizeof(int)));
    int* src = static_cast<int*>(ishmem_calloc(64, sizeof(int)));
    const int local[16] = {};
    auto is = [&](const char* m) { return std::strcmp(mode, m) == 0; };

    if (is("past_allocation")) {
        ishmem_putmem(a, local, 40, (me + 1) % n);
    } else if (is("freed")) {
        int* gone = static_cast<int*>(ishmem_malloc(64));
        ishmem_free(gone);
        ishmem_int_p(gone, 1, me);
    } else if (is("nelems")) {
        ishmem_int_sum_reduce(ISHMEM_TEAM_WORLD, dst, src, me == 1 ? 8 : 16);
    } else if (is("root")) {
        ishmem_int_broadcast(ISHMEM_TEAM_WORLD, dst, src, 4, me == 1 ? 0 : 1);
    } else if (is("barrier_vs_sync")) {
        if (me == 1)
            ishmem_barrier_all();
        else
            ishmem_sync_all();
    } else if (is("type")) {
        if (me == 1)
            ishmem_int_sum_reduce(ISHMEM_TEAM_WORLD, dst, a, 4);
        else
            ishmem_long_sum_reduce(ISHMEM_TEAM_WORLD, reinterpret_cast<long*>(dst), b, 4);
    } else if (is("other_team")) {
        ishmem_team_t pair = ISHMEM_TEAM_INVALID;
        ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, 2, nullptr, 0, &pair);
        if (me == 1)
            ishmem_team_sync(pair);
        else
            ishmem_barrier_all();
    } else if (is("split_args")) {
        ishmem_team_t t = ISHMEM_TEAM_INVALID;
        ishmem_team_split_strided(ISHMEM_TEAM_WORLD, me == 1 ? 1 : 0, 1, 1, nullptr, 0, &t);
    } else if (is("split_kind")) {
        ishmem_team_t x = ISHMEM_TEAM_INVALID, y = ISHMEM_TEAM_INVALID;
        if (me == 1)
            ishmem_team_split_2d(ISHMEM_TEAM_WORLD, 1, nullptr, 0, &x, nullptr, 0, &y);
        else
            ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, &x);
    } else if (is("malloc_size")) {
        ishmem_malloc(me == 1 ? 64 : 128);
    } else if (is("free_other")) {
        void* x = ishmem_malloc(64);
        void* y = ishmem_malloc(64);
        ishmem_free(me == 1 ? y : x);
    } else if (is("split_one_bad") || is("split_2d_one_bad")) {
        // Every PE must return -1 and an invalid team, none may wait for PE 1 (ctest's timeout).
        ishmem_team_t t = 0, y = 0;
        const int rc = is("split_one_bad")
                           ? ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, me == 1 ? 0 : n, nullptr, 0, &t)
                           : ishmem_team_split_2d(ISHMEM_TEAM_WORLD, me == 1 ? 0 : 1, nullptr, 0, &t, nullptr, 0, &y);
        std::printf("checked %s: PE %d: rc %d, team %s\n", mode, me, rc,
                    t == ISHMEM_TEAM_INVALID ? "invalid" : "valid");
        std::fflush(stdout);
        if (rc != -1 || t != ISHMEM_TEAM_INVALID) return 3;
    } else if (is("split_bad_parent") || is("split_freed_parent")) {
        // A copy of the world (every PE), whose handle PE 1 spoils: every PE must return -1 and an
        // invalid team, none may wait for PE 1 (the script's timeout). Then PE 1 passes it rightly
        // (recreated where destroyed): the splits of the team go on as if the bad one never was.
        ishmem_team_t world = ISHMEM_TEAM_INVALID, t = 0, y = 0;
        ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &world);
        ishmem_team_t parent = world;
        const bool freed = is("split_freed_parent");
        if (me == 1) {
            if (freed)
                ishmem_team_destroy(world);
            else
                parent = 12345;
        }
        if (!freed && me == 0) usleep(300 * 1000);  // a good member late: PE 1 waits for it to take part
        int rc = freed ? ishmem_team_split_2d(parent, 1, nullptr, 0, &t, nullptr, 0, &y)
                       : ishmem_team_split_strided(parent, 0, 1, n, nullptr, 0, &t);
        std::printf("checked %s: PE %d: rc %d, team %s\n", mode, me, rc,
                    t == ISHMEM_TEAM_INVALID ? "invalid" : "valid");
        std::fflush(stdout);
        if (rc != -1 || t != ISHMEM_TEAM_INVALID) return 3;
        if (freed) {  // the others destroy theirs too, and all make it again
            if (me != 1) ishmem_team_destroy(world);
            ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &world);
        }
        rc = ishmem_team_split_strided(world, n - 1, 1, 1, nullptr, 0, &t);
        const bool member = me == n - 1;
        if (rc != 0 || (t != ISHMEM_TEAM_INVALID) != member || (member && ishmem_team_n_pes(t) != 1)) return 4;
        ishmem_team_sync(world);
        std::printf("checked %s: PE %d: then a split of the team: ok\n", mode, me);
    } else if (is("overflow_put")) {
        ishmem_long_put(b, reinterpret_cast<const long*>(local), SIZE_MAX / 8 + 2, (me + 1) % n);
    } else if (is("overflow_iput")) {
        ishmem_long_iput(b, reinterpret_cast<const long*>(local), ptrdiff_t{1} << 61, 1, 2, (me + 1) % n);
    } else if (is("overflow_alltoall")) {
        ishmem_long_alltoall(ISHMEM_TEAM_WORLD, b, b, (size_t{1} << 61) / static_cast<size_t>(n));
    } else if (is("stuck")) {
        if (me == 1)
            ishmem_int_wait_until(a, ISHMEM_CMP_EQ, 42);
        else
            ishmem_barrier_all();
    } else if (is("stuck_test")) {
        if (me == 1)
            while (!ishmem_int_test(a, ISHMEM_CMP_EQ, 42)) {}
        else
            ishmem_barrier_all();
    } else if (is("ok")) {
        ishmem_putmem(a, local, 32, (me + 1) % n);
        ishmem_int_sum_reduce(ISHMEM_TEAM_WORLD, dst, a, 8);
        ishmem_int_broadcast(ISHMEM_TEAM_WORLD, dst, a, 8, 0);
        ishmem_int_collect(ISHMEM_TEAM_WORLD, dst, a, static_cast<size_t>(me % 3));
        ishmem_int_fcollect(ISHMEM_TEAM_WORLD, dst, a, 2);
        ishmem_int_put(global_buf, local, 16, (me + 1) % n);
        ishmem_int_sum_reduce(ISHMEM_TEAM_WORLD, global_buf, a, 8);
        ishmem_team_sync(ISHMEM_TEAM_WORLD);
        ishmem_team_t even = ISHMEM_TEAM_INVALID, x = ISHMEM_TEAM_INVALID, y = ISHMEM_TEAM_INVALID;
        ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even);
        ishmem_team_split_2d(ISHMEM_TEAM_WORLD, 2, nullptr, 0, &x, nullptr, 0, &y);
        if (even != ISHMEM_TEAM_INVALID) ishmem_team_sync(even);
        ishmem_team_destroy(even);
        ishmem_team_destroy(x);
        ishmem_team_destroy(y);
        ishmem_sync_all();
    } else {
        std::fprintf(stderr, "checked: unknown mode %s\n", mode);
        return 2;
    }
    ishmem_barrier_all();
    ishmem_free(src);
    ishmem_free(dst);
    ishmem_free(b);
    ishmem_free(a);
    ishmem_finalize();
    if (me == 0) std::printf("checked %s: done\n", mode);
    return 0;
}

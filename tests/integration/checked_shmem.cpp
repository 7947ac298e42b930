// checked.cpp's bugs called through shmem.h: the full-mode and watchdog reports must name the
// routines the program called (shmem_*), not the library's ishmem_* ones (check_full.sh runs it).
//   checked_shmem free_other    PE 1 frees a block, the others another one
//   checked_shmem nelems        shmem_int_sum_reduce with nreduce 8 on PE 1, 16 on the others
//   checked_shmem past          shmem_putmem 8 bytes past the end of its allocation
//   checked_shmem stuck         PE 1 waits for a flag nobody sets; the others wait in shmem_barrier_all
#include <shmem.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    int* a = static_cast<int*>(shmem_calloc(8, sizeof(int)));
    int* dst = static_cast<int*>(shmem_calloc(64, sizeof(int)));
    int* src = static_cast<int*>(shmem_calloc(64, sizeof(int)));
    const int local[16] = {};
    auto is = [&](const char* m) { return std::strcmp(mode, m) == 0; };
    if (is("free_other")) {
        shmem_free(me == 1 ? src : dst);
    } else if (is("nelems")) {
        shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, me == 1 ? 8 : 16);
    } else if (is("past")) {
        shmem_putmem(a, local, 40, (me + 1) % n);
    } else if (is("stuck")) {
        if (me == 1)
            shmem_int_wait_until(a, SHMEM_CMP_EQ, 42);
        else
            shmem_barrier_all();
    } else {
        std::fprintf(stderr, "checked_shmem: unknown mode %s\n", mode);
        return 2;
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}

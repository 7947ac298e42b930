// A program that misbehaves on purpose, for the launcher and error-path tests.
//   faulty ok                  init, barrier, finalize, exit 0
//   faulty exit PE CODE        PE exits with CODE after init; the others wait in a barrier
//   faulty segv PE             PE dies by SIGSEGV; the others wait in a barrier
//   faulty hang                every PE sleeps forever (for Ctrl-C forwarding)
//   faulty wait                PE 1 waits for a flag nobody sets, the others in a barrier (a stopped job's report)
//   faulty before_init         calls ishmem_malloc before ishmem_init
//   faulty bad_pe              ishmem_int_p to PE n_pes
//   faulty after_finalize      calls ishmem_malloc after ishmem_finalize
#include <ishmem.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "ok";
    if (std::strcmp(mode, "before_init") == 0) {
        ishmem_malloc(64);
        return 0;
    }
    ishmem_init();
    const int me = ishmem_my_pe();
    if (std::strcmp(mode, "exit") == 0 && argc > 3) {
        if (me == std::atoi(argv[2])) {
            std::fflush(stdout);
            _exit(std::atoi(argv[3]));
        }
        ishmem_barrier_all();  // never completes: the launcher must stop us
    } else if (std::strcmp(mode, "segv") == 0 && argc > 2) {
        if (me == std::atoi(argv[2])) std::raise(SIGSEGV);
        ishmem_barrier_all();
    } else if (std::strcmp(mode, "hang") == 0) {
        std::printf("PE %d ready\n", me);
        std::fflush(stdout);
        for (;;) pause();
    } else if (std::strcmp(mode, "wait") == 0) {
        int* flag = static_cast<int*>(ishmem_calloc(1, sizeof(int)));
        std::printf("PE %d ready\n", me);
        std::fflush(stdout);
        if (me == 1) ishmem_int_wait_until(flag, ISHMEM_CMP_EQ, 42);
    } else if (std::strcmp(mode, "bad_pe") == 0) {
        int* x = static_cast<int*>(ishmem_malloc(sizeof(int)));
        ishmem_int_p(x, 1, ishmem_n_pes());
    }
    ishmem_barrier_all();
    ishmem_finalize();
    if (std::strcmp(mode, "after_finalize") == 0) ishmem_malloc(64);
    return 0;
}

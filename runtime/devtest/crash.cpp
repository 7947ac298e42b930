// PE (n - 1) dies by SIGSEGV while the others wait in a barrier: ishmrun must name it and stop them.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "ishmem/impl/all.h"

using namespace ishmemi;

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "segv";
    impl::init();
    const int me = impl::my_pe(), n = impl::n_pes();
    impl::barrier_all();
    printf("PE %d pid %d\n", me, getpid());
    fflush(stdout);
    if (me == n - 1) {
        if (!strcmp(mode, "segv")) raise(SIGSEGV);
        if (!strcmp(mode, "exit3")) exit(3);
        if (!strcmp(mode, "exit0")) exit(0);         // leaves without finalize while others barrier
        if (!strcmp(mode, "finalize")) {             // finalizes while the others still barrier
            impl::finalize();
            sleep(30);
            return 0;
        }
        if (!strcmp(mode, "sleep")) sleep(30);        // for timeout / signal forwarding
    }
    if (!strcmp(mode, "sleep")) sleep(30);
    impl::barrier_all();
    impl::barrier_all();
    impl::finalize();
    return 0;
}

// ishmem_global_exit from one PE while the others are busy elsewhere, for check_global_exit.sh.
//   global_exit CALLER STATUS [how]
// PE CALLER ends the job with STATUS; PE 0 (when it is not the caller) waits in ishmem_wait_until
// for a word nobody sets, the other PEs wait in ishmem_barrier_all, which cannot complete. how:
//   main         (default) the caller's main thread calls it, after the others had time to block
//   thread       a second thread of the caller calls it while its main thread computes
//   before_init  the caller calls it before ishmem_init, while the others are inside ishmem_init
// Every PE that gets past its wait prints "NOT STOPPED" and exits with 99.
#include <ishmem.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: global_exit CALLER STATUS [main|thread|before_init]\n");
        return 2;
    }
    const int caller = std::atoi(argv[1]), status = std::atoi(argv[2]);
    const char* how = argc > 3 ? argv[3] : "main";
    const char* pe_text = std::getenv("ISHMEMI_PE");  // set by ishmrun; a lone process is PE 0
    const int my_pe_before_init = pe_text ? std::atoi(pe_text) : 0;

    if (std::strcmp(how, "before_init") == 0 && my_pe_before_init == caller) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        ishmem_global_exit(status);
    }
    ishmem_init();
    const int me = ishmem_my_pe();
    long* flag = static_cast<long*>(ishmem_calloc(1, sizeof(long)));
    std::printf("PE %d of %d blocks\n", me, ishmem_n_pes());
    std::fflush(stdout);
    if (me == caller) {
        if (std::strcmp(how, "thread") == 0) {
            std::atomic<bool> stop{false};
            std::thread t([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(300));
                ishmem_global_exit(status);
            });
            volatile double x = 0;  // a computation that never ends by itself
            while (!stop.load()) x = x + 1.0;
            t.join();
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            ishmem_global_exit(status);
        }
    } else if (me == 0) {
        ishmem_wait_until(flag, ISHMEM_CMP_EQ, 1);
    } else {
        ishmem_barrier_all();
    }
    std::printf("PE %d NOT STOPPED\n", me);
    return 99;
}

// One error per run (argv[1] picks it); each must end the PE with one clear line on stderr.
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "ishmem/impl/all.h"

using namespace ishmemi;

int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "preinit")) {
        check_init("ishmem_malloc");
        return 0;
    }
    if (!strcmp(what, "preinit_pe")) check_pe("ishmem_int_put", 0);
    impl::init();
    int* buf = static_cast<int*>(impl::malloc(64));
    int local[8];
    if (!strcmp(what, "pe")) check_pe("ishmem_int_put", 7);
    if (!strcmp(what, "symmetric")) check_symmetric("ishmem_int_put", "dest", local, sizeof local);
    if (!strcmp(what, "past_end")) check_symmetric("ishmem_int_put", "dest", buf, size_t(1) << 40);
    if (!strcmp(what, "null")) check_nonnull("ishmem_int_put", "source", nullptr, 5);
    if (!strcmp(what, "sig_op")) check_sig_op("ishmem_int_put_signal", 7);
    if (!strcmp(what, "cmp")) check_cmp("ishmem_int_wait_until", 0);
    if (!strcmp(what, "align")) impl::align(48, 100);
    if (!strcmp(what, "free")) impl::free(local);
    if (!strcmp(what, "double_free")) {
        impl::free(buf);
        impl::free(buf);
    }
    if (!strcmp(what, "oom")) {
        void* p = impl::malloc(size_t(1) << 40);
        printf("oom returned %p\n", p);
    }
    if (!strcmp(what, "init_twice")) impl::init();
    if (!strcmp(what, "no_finalize")) return 0;  // must still end cleanly on every PE
    if (!strcmp(what, "fork_exit") && fork() == 0) exit(0);  // a child's exit must not look like the PE's
    if (!strcmp(what, "pmi")) {
        impl::finalize();
        ishmemx_attr_t attr;
        attr.runtime = ISHMEMX_RUNTIME_PMI;
        impl::init_attr(&attr);
    }
    impl::finalize();
    if (!strcmp(what, "finalize_twice")) impl::finalize();
    return 0;
}

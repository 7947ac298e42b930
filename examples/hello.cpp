// hello: every PE says who it is; the smallest complete ishmem program.
//   ishmrun -n 4 ./hello
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    char name[ISHMEM_MAX_NAME_LEN];
    int major = 0, minor = 0;
    ishmem_info_get_name(name);
    ishmem_info_get_version(&major, &minor);
    std::printf("hello from PE %d of %d (%s, API %d.%d)\n", ishmem_my_pe(), ishmem_n_pes(), name, major, minor);
    ishmem_finalize();
    return 0;
}

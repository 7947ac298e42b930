// Single elements: every PE writes its number into PE 0's table, then reads a neighbour's value.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    double* table = static_cast<double*>(ishmem_calloc(n, sizeof(double)));
    ishmem_double_p(&table[me], 0.5 * me, 0);  // into PE 0's table
    ishmem_barrier_all();
    int bad = 0;
    for (int pe = 0; pe < n; ++pe) bad |= ishmem_double_g(&table[pe], 0) != 0.5 * pe;
    const int right = (me + 1) % n;  // only PE 0's table was written; the others hold zeros
    bad |= ishmem_g(&table[n - 1], right) != (right == 0 ? 0.5 * (n - 1) : 0.0);  // generic form
    std::printf("rma_p_g: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}

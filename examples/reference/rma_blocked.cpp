// Blocked RMA: copy the first two columns of a 4 x 4 row-major matrix to a neighbour as 4 blocks of
// 2, each landing at the start of a row of 8, and read them back the same way.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes(), right = (me + 1) % n;
    int* wide = static_cast<int*>(ishmem_calloc(4 * 8, sizeof(int)));
    int matrix[16], back[16] = {};
    for (int i = 0; i < 16; ++i) matrix[i] = me * 100 + i;
    ishmemx_int_ibput(wide, matrix, 8, 4, 2, 4, right);  // dest blocks 8 apart, source blocks 4 apart
    ishmem_barrier_all();
    ishmemx_int_ibget(back, wide, 4, 8, 2, 4, right);
    int bad = 0;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) bad |= back[r * 4 + c] != (c < 2 ? matrix[r * 4 + c] : 0);
    std::printf("rma_blocked: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}

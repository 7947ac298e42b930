// Non-blocking RMA: start a put and a get, overlap them with other work, complete them with quiet.
#include <ishmem.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes(), right = (me + 1) % n;
    constexpr size_t len = 1024;
    float* inbox = static_cast<float*>(ishmem_malloc(len * sizeof(float)));
    float* outbox = static_cast<float*>(ishmem_malloc(len * sizeof(float)));
    static float mine[len], theirs[len];
    for (size_t i = 0; i < len; ++i) outbox[i] = mine[i] = static_cast<float>(me + i);
    ishmem_barrier_all();                              // every outbox is filled
    ishmem_float_put_nbi(inbox, mine, len, right);     // mine must not change until the quiet
    ishmem_float_get_nbi(theirs, outbox, len, right);  // theirs is not valid until the quiet
    ishmem_quiet();
    ishmem_barrier_all();  // every PE's puts are complete
    int bad = 0;
    for (size_t i = 0; i < len; ++i)
        bad |= theirs[i] != static_cast<float>(right + i) || inbox[i] != static_cast<float>((me + n - 1) % n + i);
    std::printf("rma_nbi: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}

// Contexts: a private context for this thread's puts, and one over a team of the even PEs; each
// is completed on its own with ctx_quiet and ordered with ctx_fence.
#include <ishmem.h>
#include <ishmemx.h>

#include <cstdio>

int main() {
    ishmem_init();
    const int me = ishmem_my_pe(), n = ishmem_n_pes();
    ishmemx_ctx_t ctx = ISHMEMX_CTX_INVALID, team_ctx = ISHMEMX_CTX_INVALID;
    int bad = ishmemx_ctx_create(ISHMEMX_CTX_PRIVATE, &ctx) != 0;
    ishmem_team_t team = ISHMEM_TEAM_INVALID, evens = ISHMEM_TEAM_INVALID;
    bad |= ishmemx_ctx_get_team(ctx, &team) != 0 || team != ISHMEM_TEAM_WORLD;
    bad |= ishmemx_ctx_translate_pe(ctx, n - 1) != n - 1;  // world numbers
    ishmemx_ctx_fence(ctx);
    ishmemx_ctx_quiet(ctx);
    ishmemx_ctx_destroy(ctx);
    ishmem_team_split_strided(ISHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens);
    if (me % 2 == 0) {
        bad |= ishmemx_team_create_ctx(evens, 0, &team_ctx) != 0;
        bad |= ishmemx_ctx_translate_pe(team_ctx, 0) != 0;  // team PE 0 is world PE 0
        bad |= ishmemx_ctx_get_team(team_ctx, &team) != 0 || team != evens;
        ishmemx_ctx_destroy(team_ctx);
        ishmem_team_destroy(evens);
    }
    std::printf("contexts: PE %d: %s\n", me, bad ? "WRONG" : "OK");
    ishmem_finalize();
    return bad;
}

// The context table of this PE: a fixed array of slots, each free or holding the team of a live
// context, claimed with a compare-and-swap so that threads create and destroy contexts concurrently
// without a lock, and looked up without one by every shmem_ctx_ operation.
#include "ishmem/impl/contexts.h"

#include <atomic>
#include <climits>

#include "ishmem/impl/teams.h"

namespace ishmemi {

namespace {

constexpr int free_slot = INT_MIN;  // never a team handle (ISHMEM_TEAM_INVALID is -1)

struct ctx_slot {
    std::atomic<int> team{free_slot};
    std::atomic<long> options{0};  // recorded; no option changes what the library does
};
ctx_slot slots[ctx_max];

ctx_slot* slot_of(ishmemx_ctx_t ctx) { return ctx >= 1 && ctx <= ctx_max ? &slots[ctx - 1] : nullptr; }

int create(const char* routine, ishmem_team_t team, long options, ishmemx_ctx_t* ctx) {
    for (int i = 0; i < ctx_max; ++i) {
        int expected = free_slot;
        if (slots[i].team.compare_exchange_strong(expected, team, std::memory_order_acq_rel)) {
            slots[i].options.store(options, std::memory_order_relaxed);
            *ctx = i + 1;
            return 0;
        }
    }
    warn(routine, "this PE already holds %d contexts, the most it may; destroy one first", ctx_max);
    return 1;
}

}  // namespace

ishmem_team_t ctx_team(ishmemx_ctx_t ctx) {
    if (ctx == ISHMEMX_CTX_DEFAULT) return ISHMEM_TEAM_WORLD;
    const ctx_slot* s = slot_of(ctx);
    const int team = s ? s->team.load(std::memory_order_acquire) : free_slot;
    return team == free_slot ? ISHMEM_TEAM_INVALID : team;
}

void fail_ctx(const char* routine, ishmemx_ctx_t ctx) {
    if (slot_of(ctx)) fatal(routine, "ctx %d is not a live context (it was destroyed, or its team was)", ctx);
    fatal(routine, "ctx %d is not a context handle", ctx);
}

void contexts_team_destroyed(ishmem_team_t team) {
    bool quieted = false;
    for (ctx_slot& s : slots) {
        if (s.team.load(std::memory_order_acquire) != team) continue;
        if (!quieted) impl::quiet();
        quieted = true;
        s.team.store(free_slot, std::memory_order_release);
    }
}

void contexts_fini() {
    for (ctx_slot& s : slots) s.team.store(free_slot, std::memory_order_release);
}

namespace impl {

int ctx_create(long options, ishmemx_ctx_t* ctx) {
    return create("ishmemx_ctx_create", ISHMEM_TEAM_WORLD, options, ctx);
}

int team_create_ctx(ishmem_team_t team, long options, ishmemx_ctx_t* ctx) {
    return create("ishmemx_team_create_ctx", team, options, ctx);
}

void ctx_destroy(ishmemx_ctx_t ctx) {
    if (ctx == ISHMEMX_CTX_INVALID) return;
    if (ctx == ISHMEMX_CTX_DEFAULT) fatal("ishmemx_ctx_destroy", "the default context cannot be destroyed");
    quiet();  // the context's operations complete before its handle goes
    slot_of(ctx)->team.store(free_slot, std::memory_order_release);
}

int ctx_get_team(ishmemx_ctx_t ctx, ishmem_team_t* team) {
    *team = ctx_team(ctx);
    return *team == ISHMEM_TEAM_INVALID ? 1 : 0;
}

int ctx_translate_pe(ishmemx_ctx_t ctx, int pe) {
    const ishmem_team_t team = ctx_team(ctx);
    if (team == ISHMEM_TEAM_INVALID) return -1;
    return team_translate_pe(team, pe, ISHMEM_TEAM_WORLD);
}

}  // namespace impl
}  // namespace ishmemi

int ishmemi_ctx_world_pe(ishmemx_ctx_t ctx, int pe, const char* routine) {
    using namespace ishmemi;
    check_init(routine);
    const int world = impl::ctx_translate_pe(ctx, pe);
    if (__builtin_expect(world >= 0, 1)) return world;
    if (ctx == ISHMEMX_CTX_INVALID) fatal(routine, "ctx is the invalid context (SHMEM_CTX_INVALID)");
    check_ctx(routine, ctx);
    const ishmem_team_t team = ctx_team(ctx);
    fatal(routine, "pe %d is not a PE of the context's team %d (its PEs are 0..%d)", pe, team,
          impl::team_n_pes(team) - 1);
}

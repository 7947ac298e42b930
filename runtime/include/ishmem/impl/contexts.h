// Communication contexts: per-PE handles over a team (runtime/src/contexts.cpp). Every put and AMO of
// the host and CUDA backends is complete when it returns to the host, so a context needs no queue of
// its own: its fence and quiet are the PE's, which order and complete at least its operations.
#pragma once

#include "ishmem/impl/ordering.h"
#include "ishmem/impl/runtime.h"

namespace ishmemi {

// A PE holds at most this many contexts besides ISHMEMX_CTX_DEFAULT; handles are 1..ctx_max.
inline constexpr int ctx_max = 1024;

// The team of a live context (ISHMEM_TEAM_WORLD for the default one); ISHMEM_TEAM_INVALID for
// ISHMEMX_CTX_INVALID, a handle never made, or a destroyed one.
ISHMEM_API ishmem_team_t ctx_team(ishmemx_ctx_t ctx);

[[noreturn, gnu::cold]] ISHMEM_API void fail_ctx(const char* routine, ishmemx_ctx_t ctx);

// ISHMEMX_CTX_DEFAULT, ISHMEMX_CTX_INVALID (each routine says what it does with it) or a live context.
inline void check_ctx(const char* routine, ishmemx_ctx_t ctx) {
    if (ctx != ISHMEMX_CTX_DEFAULT && ctx != ISHMEMX_CTX_INVALID && ctx_team(ctx) == ISHMEM_TEAM_INVALID)
        fail_ctx(routine, ctx);
}

// team_destroy destroys the contexts made over the team (after a quiet); finalize all of them.
ISHMEM_API void contexts_team_destroyed(ishmem_team_t team);
ISHMEM_API void contexts_fini();

namespace impl {

ISHMEM_API int ctx_create(long options, ishmemx_ctx_t* ctx);
ISHMEM_API int team_create_ctx(ishmem_team_t team, long options, ishmemx_ctx_t* ctx);
ISHMEM_API void ctx_destroy(ishmemx_ctx_t ctx);
ISHMEM_API int ctx_get_team(ishmemx_ctx_t ctx, ishmem_team_t* team);
ISHMEM_API int ctx_translate_pe(ishmemx_ctx_t ctx, int pe);

inline void ctx_fence(ishmemx_ctx_t ctx) {
    if (ctx != ISHMEMX_CTX_INVALID) fence();
}
inline void ctx_quiet(ishmemx_ctx_t ctx) {
    if (ctx != ISHMEMX_CTX_INVALID) quiet();
}

}  // namespace impl
}  // namespace ishmemi

// shmem.h's shmem_ctx_ routines: the world PE of PE pe of ctx's team; stops the job with a message
// naming routine when ctx is not a live context or pe is not in its team.
ISHMEM_C_API int ishmemi_ctx_world_pe(ishmemx_ctx_t ctx, int pe, const char* routine);

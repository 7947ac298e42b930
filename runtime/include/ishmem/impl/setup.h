// Library setup, queries and symmetric memory management.
#pragma once

#include <cstddef>
#include <cstring>

#include "ishmem/impl/runtime.h"

namespace ishmemi::impl {

ISHMEM_API void init();
ISHMEM_API void init_attr(ishmemx_attr_t* attr);  // attr may be null: the defaults
ISHMEM_API int init_thread(int requested, int* provided);
ISHMEM_API void query_thread(int* provided);
ISHMEM_API void finalize();
ISHMEM_API void query_initialized(int* initialized);
// Ends the whole job with status; any thread, at any time (also before init: under ishmrun the
// launcher still ends the job).
[[noreturn]] ISHMEM_API void global_exit(int status);
// The runtime type init was asked for; ISHMEMX_RUNTIME_INVALID before init.
ISHMEM_API ishmemx_runtime_type_t runtime_get_type();

// Collective over all PEs: every PE calls them in the same order with the same arguments, from one
// thread at a time (they call barrier_all). malloc, align and calloc end with barrier_all (except
// size 0: nullptr at once, no barrier); free starts with one. Past the end of the heap they return
// nullptr after a warning.
ISHMEM_API void* malloc(size_t size);
ISHMEM_API void* align(size_t alignment, size_t size);
ISHMEM_API void* calloc(size_t count, size_t size);
ISHMEM_API void free(void* ptr);
// hints is checked by the entry point; no hint changes where a block goes on these backends.
inline void* malloc_with_hints(size_t size, long /*hints*/) { return malloc(size); }
ISHMEM_API void* realloc(void* ptr, size_t size);

inline int my_pe() { return state.my_pe; }

inline int n_pes() { return state.n_pes; }

// PE pe's copy of the symmetric object at dest (in the heap or the executable's symmetric data and
// bss), usable with loads and stores; nullptr when dest is not symmetric, pe is out of range or the
// peer is not mapped.
inline void* ptr(const void* dest, int pe) {
    uintptr_t off = reinterpret_cast<uintptr_t>(dest) - reinterpret_cast<uintptr_t>(state.heap_base);
    if (!state.initialized || static_cast<unsigned>(pe) >= static_cast<unsigned>(state.n_pes) || !state.peer_base[pe])
        return nullptr;
    if (off >= state.heap_size &&
        reinterpret_cast<uintptr_t>(dest) - reinterpret_cast<uintptr_t>(state.globals_base) >= state.globals_size)
        return nullptr;
    return translate(dest, pe);
}

// Every PE of the job is reachable: those of this node by loads and stores, the others through the
// transport.
inline int pe_accessible(int pe) {
    return state.initialized && static_cast<unsigned>(pe) < static_cast<unsigned>(state.n_pes);
}

// addr is symmetric (in the heap or the symmetric globals) and pe is reachable.
inline int addr_accessible(const void* addr, int pe) {
    if (!pe_accessible(pe)) return 0;
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    return a - reinterpret_cast<uintptr_t>(state.heap_base) < state.heap_size ||
           a - reinterpret_cast<uintptr_t>(state.globals_base) < state.globals_size;
}

inline void info_get_version(int* major, int* minor) {
    *major = ISHMEM_MAJOR_VERSION;
    *minor = ISHMEM_MINOR_VERSION;
}

// name must hold ISHMEM_MAX_NAME_LEN bytes.
inline void info_get_name(char* name) {
    strncpy(name, ISHMEM_VENDOR_STRING, ISHMEM_MAX_NAME_LEN - 1);
    name[ISHMEM_MAX_NAME_LEN - 1] = '\0';
}

}  // namespace ishmemi::impl

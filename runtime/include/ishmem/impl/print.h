// ishmemx_print: the program's messages, one write(2) each (runtime/src/print.cpp).
#pragma once

#include "ishmem/impl/api.h"

namespace ishmemi {

// The message types are ishmemx_print_msg_type_t's enumerators, which only ishmemx.h declares (ishmem.h
// stays free of their short names), so the core takes them as int. print.cpp checks the value.
inline constexpr int print_type_debug = 0;

}  // namespace ishmemi

namespace ishmemi::impl {

// file and func may be null (left out of the verbose prefix); out is not null (the entry points check).
ISHMEM_API void print(const char* file, long line, const char* func, const char* out, int msg_type);
inline void print(const char* out, int msg_type) { print(nullptr, 0, nullptr, out, msg_type); }
// Tools intercept ishmemx_pcontrol; the library only reports the level as a DEBUG message.
ISHMEM_API void pcontrol(int level);
inline void print(const char* out) { print(out, print_type_debug); }

}  // namespace ishmemi::impl

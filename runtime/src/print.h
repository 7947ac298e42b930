// The one place that writes ishmemx_print's messages: host calls, and device calls that the CUDA
// backend's watcher brings to the host.
#pragma once

namespace ishmemi {

struct print_request {
    const char* file;  // null: no location in the verbose prefix
    long line;
    const char* func;  // null: left out
    const char* out;   // the message, not null
    int type;          // an ishmemx_print_msg_type_t
    long long block;   // device code: the printing block and thread (linear indices); -1 for the host
    long long thread;
};

// Writes the message as one write(2): to stdout for STDOUT, else to stderr; nothing for DEBUG unless
// ISHMEM_DEBUG is on. With ISHMEM_ENABLE_VERBOSE_PRINT on, a prefix names the PE, type and location.
// Both variables are read at each call.
void print_message(const print_request& r);

// Whether ISHMEM_DEBUG is on now (as print_message sees it).
bool print_debug_enabled();

}  // namespace ishmemi

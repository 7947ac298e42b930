// Symbol visibility for the entry points and the runtime functions that headers call.
#pragma once
#define ISHMEM_API __attribute__((visibility("default")))

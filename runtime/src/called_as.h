// The routine the program called, set by shmem.h's routines that forward to another routine
// (shmem_long_finc to shmem_long_atomic_fetch_inc, the long double RMA to the mem routines):
// errors.cpp names it in messages and checks.cpp in the watchdog's reports. Null elsewhere.
#pragma once

#include "ishmem/impl/api.h"

extern "C" ISHMEM_API __thread const char* ishmemi_called_as;

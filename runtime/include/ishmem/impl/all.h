// Everything the generated entry points call.
#pragma once

#include "ishmem/impl/runtime.h"
#include "ishmem/impl/work_group.h"
#include "ishmem/impl/queue.h"
#include "ishmem/impl/setup.h"
#include "ishmem/impl/rma.h"
#include "ishmem/impl/amo.h"
#include "ishmem/impl/signal.h"
#include "ishmem/impl/ordering.h"
#include "ishmem/impl/sync.h"
#include "ishmem/impl/p2p.h"
#include "ishmem/impl/teams.h"
#include "ishmem/impl/collectives.h"
#include "ishmem/impl/print.h"
#include "ishmem/impl/contexts.h"
#include "ishmem/impl/locks.h"
#if defined(__CUDACC__)
#include "ishmem/cuda/device.cuh"  // the device half, for the entry points' device definitions
#endif

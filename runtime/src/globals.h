// The executable's data and bss as symmetric memory (host backend; see globals.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ishmem/impl/bootstrap.h"

namespace ishmemi {

// The executable's writable data and bss past its RELRO part: what the host backend makes symmetric.
struct globals_segment {
    char* lo = nullptr;      // first symmetric byte (the end of RELRO, or the segment's start)
    char* hi = nullptr;      // one past the end of bss
    char* map_lo = nullptr;  // [map_lo, map_lo + map_size): the pages that hold [lo, hi)
    size_t map_size = 0;
    uintptr_t bias = 0;  // load address of the executable (lo - bias is the same on every PE)
};

// Finds the executable's data/bss (empty when ISHMEM_SYMMETRIC_GLOBALS=0 or it has none) and
// checks that every PE found the same layout. Collective.
globals_segment globals_find(bootstrap& boot);

// How far apart heap.cpp must map the PEs' heaps (0: any distance) so that the peers' globals,
// at the same distances from mine, land above the brk heap with 1 GiB left for it to grow.
size_t globals_min_stride(const globals_segment& g);

// Moves my data/bss pages into a memfd at the same addresses with the same contents, shares the
// memfd with the other PEs and maps PE pe's at g.map_lo + (peer_base[pe] - peer_base[me]), so that
// translate() reaches a peer's globals as it reaches its heap. peer_base must hold every PE's heap
// already, placed so that those ranges are free (heap.cpp). Sets state.globals_*. Collective.
void globals_share(bootstrap& boot, const globals_segment& g, char* const* peer_base);

// Milliseconds the last globals_share took (the copy into the memfd, the exchange, the mappings).
double globals_share_ms();

// Unmaps the peers' globals (mine stay where the program's variables live) and clears state.globals_*.
void globals_unshare();

}  // namespace ishmemi

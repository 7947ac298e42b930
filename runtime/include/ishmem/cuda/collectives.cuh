// Data collectives in device code: alltoall, broadcast, collect, fcollect, the seven reductions and
// the two scans, over a team. The same code serves three kinds of caller: one thread (the base
// forms in a kernel), a group (_work_group), and a whole cooperative grid (the library's kernels
// behind the host-called and _on_queue forms, runtime/cuda/collectives.cu, which spread large
// messages over many blocks).
//
// Every GPU maps every peer's heap, so members move data by load and store over NVLink. Small calls
// go through the team's ring (device_state.h): every member stores its data, each word tagged with
// the call's number, into the ring of each member that needs it, and each polls its own ring for the
// words of this call - one hop, no flags. Medium calls on the first teams, within a limit per kind,
// go through the team's stage (coll/medium.cuh): ranges stored into the receivers' stage,
// one fence, a flag per part, and each receiver copies into its own dest. Larger calls write the
// members' buffers directly and coordinate through call-numbered flags in the team's GPU sync slot,
// never reset:
//   - ready: a member has entered the call, so its source may be read and its dest written;
//   - done: a member has finished with my buffers in this call (its writes to them are visible).
// Data moves by push (the writer is the member whose data it is): fcollect, collect and alltoall
// wait for every member's ready, store their blocks into the members' dests, then signal done;
// broadcast needs only the root to wait. Reductions and scans split the array into one chunk per
// member: member k alone reads chunk k of every source, combines it in team order and stores the
// result in chunk k of every dest. Since nobody else reads chunk k, this is safe in place, every
// PE gets bit-identical floating-point results, and each PE moves 2(n-1)/n of the array over the
// links (reduce-scatter plus all-gather in one pass).
//
// A team with members on other nodes takes none of these: its calls move data by put, through the
// proxy to the other nodes, between team barriers (coll/nodes.cuh).
//
// Included at the end of device.cuh. One header per path (coll/ring.cuh, coll/medium.cuh) and per
// operation (coll/broadcast.cuh, collect.cuh, alltoall.cuh, reduce.cuh), as on the host (impl/coll/).
#pragma once

#include "ishmem/cuda/coll/common.cuh"
#include "ishmem/cuda/coll/ring.cuh"
#include "ishmem/cuda/coll/medium.cuh"
#include "ishmem/cuda/coll/nodes.cuh"
#include "ishmem/cuda/coll/broadcast.cuh"
#include "ishmem/cuda/coll/collect.cuh"
#include "ishmem/cuda/coll/alltoall.cuh"
#include "ishmem/cuda/coll/reduce.cuh"

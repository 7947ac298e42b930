// Collectives over a team: team_sync, alltoall, broadcast, collect, fcollect, reductions and scans.
//
// Every PE of the host backend maps every peer's heap, so members pull data straight from the
// peers' symmetric buffers. Instead of full barriers, members exchange flags in the team's slot:
//   - ready: a member publishes the call number once its buffers may be read in that call;
//   - acks: a reader adds one to a member's count once it has finished reading that member's
//     buffers; the member returns (and may reuse its buffers) only when all its readers have.
// So a member waits only for the members it reads and for those that read it: in a broadcast the
// non-roots wait for the root alone and the root for its readers; a scan waits for the lower
// members. Reductions and scans of at least ISHMEM_REDUCE_SCATTER_MIN bytes on 2 or more PEs are
// chunked (by_chunks): member k reduces or scans the k-th chunk over all sources and writes it into
// every member's dest, between two team barriers, reading the array about once per PE instead of up
// to n times. Every member combines the PEs in the same order, so floating-point results agree on
// all PEs. Messages of at most eager_bytes go through inboxes instead (class eager); small scans and
// broadcasts then pass along a chain of the members (ISHMEM_CHAIN_MIN). A team with members on
// several nodes runs through the transport, in two levels where it has node groups (coll/hierarchy.h).
//
// The _work_group forms split every copy and reduction loop across the group's threads; one thread
// exchanges the flags and takes the barriers, fenced by group barriers.
#pragma once

// One header per operation; hierarchy.h holds the paths of teams with members on several nodes.
#include "ishmem/impl/coll/common.h"
#include "ishmem/impl/coll/alltoall.h"
#include "ishmem/impl/coll/barrier.h"
#include "ishmem/impl/coll/broadcast.h"
#include "ishmem/impl/coll/collect.h"
#include "ishmem/impl/coll/reduce.h"
#include "ishmem/impl/coll/hierarchy.h"

#undef ISHMEMI_BYTES_ON_QUEUE  // coll/common.h; its uses are in alltoall.h and collect.h

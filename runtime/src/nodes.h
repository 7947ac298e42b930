// Which PEs share a node: the PEs of a node map each other's heaps and reach each other with loads,
// stores and CPU atomics; PEs of other nodes are reached through the transport (impl/transport.h).
#pragma once

#include "ishmem/impl/bootstrap.h"

namespace ishmemi {

// Collective: every PE learns every PE's node (ISHMEM_NODE_SPLIT: by host name, or a node per PE).
// A node is numbered by its lowest PE.
void nodes_find(bootstrap& boot);
void nodes_clear();
// node_table()[pe]: PE pe's node; valid from nodes_find to nodes_clear.
const int* node_table();
int node_of(int pe);
// True when every PE of the job is on this PE's node.
bool job_on_one_node();

}  // namespace ishmemi

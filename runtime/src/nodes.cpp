// The node map (nodes.h): host names gathered over the bootstrap.
#include "nodes.h"

#include <unistd.h>

#include <cstring>
#include <vector>

#include "config.h"
#include "ishmem/impl/runtime.h"

namespace ishmemi {

namespace {

std::vector<int> nodes;

}  // namespace

void nodes_find(bootstrap& boot) {
    const int n = boot.n_pes();
    nodes.assign(n, 0);
    // Tests of the multi-node paths on one machine: blocks of node_split PEs, or PEs dealt out to
    // node_cyclic nodes in turn (as mpirun --map-by node places them).
    if (config.node_split > 0 || config.node_cyclic > 0) {
        for (int pe = 0; pe < n; ++pe)
            nodes[pe] = config.node_split > 0 ? pe - pe % config.node_split : pe % config.node_cyclic;
        return;
    }
    struct host_name {
        char text[256];
    };
    host_name mine{};
    gethostname(mine.text, sizeof mine.text - 1);
    std::vector<host_name> all(n);
    boot.allgather(&mine, all.data(), sizeof mine);
    for (int pe = 0; pe < n; ++pe) {
        int first = 0;  // the lowest PE with the same name
        while (strcmp(all[first].text, all[pe].text) != 0) ++first;
        nodes[pe] = first;
    }
}

void nodes_clear() { nodes.clear(); }

const int* node_table() { return nodes.data(); }

int node_of(int pe) { return nodes[static_cast<size_t>(pe)]; }

bool job_on_one_node() {
    for (int node : nodes)
        if (node != nodes[static_cast<size_t>(state.my_pe)]) return false;
    return true;
}

}  // namespace ishmemi

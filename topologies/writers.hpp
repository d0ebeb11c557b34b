// Writes a Graph in the two file formats readers.hpp reads, with every edge's latency and
// bandwidth, so that reading the output gives the same graph back.
#pragma once

#include <ostream>

#include "topologies/graph.hpp"

namespace dlsim::topo {

/// GraphViz: "graph dlsim {", every node (so isolated nodes survive), then one line per edge
/// "  0 -- 1 [latency="1ms", bandwidth="1Gbps"];" in (u, v) order, then "}".
void write_dot(const Graph& graph, std::ostream& out);
/// Edge list: a '#' header, then one line "u v latency bandwidth" per edge in (u, v) order.
void write_edge_list(const Graph& graph, std::ostream& out);

}  // namespace dlsim::topo

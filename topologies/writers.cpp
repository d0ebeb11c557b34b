#include "topologies/writers.hpp"

#include <fmt/ostream.h>

#include "sim/core/units.hpp"

namespace dlsim::topo {

void write_dot(const Graph& graph, std::ostream& out) {
  fmt::print(out, "graph dlsim {{\n");
  fmt::print(out, "  // {} nodes, {} edges\n", graph.node_count(), graph.edges().size());
  for (uint32_t i = 0; i < graph.node_count(); ++i) fmt::print(out, "  {};\n", i);
  for (const Edge& e : graph.edges())
    fmt::print(out, "  {} -- {} [latency=\"{}\", bandwidth=\"{}\"];\n", e.u, e.v,
               format_duration(e.latency), format_rate(e.bandwidth_bps));
  fmt::print(out, "}}\n");
}

void write_edge_list(const Graph& graph, std::ostream& out) {
  fmt::print(out, "# {} nodes, {} edges: u v latency bandwidth\n", graph.node_count(),
             graph.edges().size());
  for (const Edge& e : graph.edges())
    fmt::print(out, "{} {} {} {}\n", e.u, e.v, format_duration(e.latency),
               format_rate(e.bandwidth_bps));
}

}  // namespace dlsim::topo

// Reads a topology from a file: an edge list ("u v [latency] [bandwidth]" per line) or a
// GraphViz DOT graph. Both give nodes 0..n-1 and edges with the latency and bandwidth the file
// states, if any; build_topology fills in the rest and checks connectivity.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.hpp"

namespace dlsim::topo {

/// An edge as a file gives it: u < v, and the values the file states.
struct FileEdge {
  uint32_t u = 0;
  uint32_t v = 0;
  std::optional<SimTime> latency;
  std::optional<uint64_t> bandwidth_bps;
  bool operator==(const FileEdge&) const = default;
};

/// A graph as read from a file: edges sorted by (u, v), no self-loops or duplicates.
struct FileGraph {
  uint32_t node_count = 0;
  std::vector<FileEdge> edges;
};

/// Edge list text: one edge "u v [latency] [bandwidth]" per line, e.g. "0 1 2ms 100Mbps";
/// whitespace separated, '#' starts a comment, blank lines are skipped. Nodes are integers
/// 0..n-1 where n = node_count, or max id + 1 when node_count == 0. Units as in
/// sim/core/units.hpp. Throws InputError "file:line: message" on a malformed line, a self-loop,
/// a duplicate edge, a node out of range or a bad unit; "file: message" when the file cannot be
/// read or holds no edge.
FileGraph read_edge_list(const std::string& path, uint32_t node_count);

/// An undirected GraphViz graph ("graph { 0 -- 1 [latency="2ms", bandwidth="1Gbps"]; }"). Node
/// ids must be the integers 0..n-1 (not mapped: they are the agent ids), n as for
/// read_edge_list. Edge attributes "latency" and "bandwidth" are read; other attributes are
/// ignored. Throws InputError "file: message"; for a syntax error the message is Boost's.
FileGraph read_dot(const std::string& path, uint32_t node_count);

}  // namespace dlsim::topo

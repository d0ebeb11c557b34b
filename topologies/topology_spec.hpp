// A topology as users write it: the kind of graph, its size and parameters, and how latency and
// bandwidth are assigned to its edges. Plain data, validated by the JSON loader
// (sim/scenario/topology_json.hpp) and turned into a Graph by build_topology (generators.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/time.hpp"

namespace dlsim::topo {

enum class TopologyKind {
  kRing,             // i -- i+1 mod n
  kLine,             // i -- i+1
  kComplete,         // every pair
  kStar,             // 0 -- i
  kGrid,             // rows x cols lattice
  kTorus,            // rows x cols lattice with wrap-around
  kHypercube,        // i -- i xor 2^b; n a power of two
  kRandomRegular,    // every node has `degree` neighbours
  kErdosRenyi,       // each pair with probability p, conditioned on connected
  kWattsStrogatz,    // ring lattice with k neighbours, each edge rewired with probability beta
  kBarabasiAlbert,   // preferential attachment, m edges per new node
  kRandomGeometric,  // points in the unit square, linked within `radius`; conditioned connected
  kExponential,      // i -- i +- 2^k mod n
  kEdgeList,         // a text file "u v [latency] [bandwidth]" (readers.hpp)
  kDot,              // a GraphViz file (readers.hpp)
};

/// The JSON name of a kind: "ring", "random_regular", "edge_list", ...
std::string_view to_string(TopologyKind kind);
/// The kind named `name`, or nullopt.
std::optional<TopologyKind> topology_kind_from_string(std::string_view name);
/// All kind names, comma separated, for error messages.
std::string topology_kind_names();

/// A per-edge value: every edge gets `min` when min == max, otherwise a uniform draw in
/// [min, max] (integers: nanoseconds or bits per second, both ends included).
template <class T>
struct ValueRange {
  T min{};
  T max{};
  bool is_constant() const { return min == max; }
  bool operator==(const ValueRange&) const = default;
};

/// Latency and/or bandwidth for one edge {u, v}, overriding the default and any file attribute.
struct EdgeOverride {
  uint32_t u = 0;
  uint32_t v = 0;
  std::optional<SimTime> latency;
  std::optional<uint64_t> bandwidth_bps;
  bool operator==(const EdgeOverride&) const = default;
};

/// Documented defaults for every edge when a topology gives neither value.
inline constexpr SimTime kDefaultLatency = SimTime::from_ms(1);  // "1ms"
inline constexpr uint64_t kDefaultBandwidthBps = 1000000000;     // "1Gbps"

struct TopologySpec {
  TopologyKind kind = TopologyKind::kRing;
  /// Node count. For grid and torus rows * cols; for files the file's count (0: whatever the
  /// file holds; otherwise the file must have exactly n nodes).
  uint32_t n = 0;
  uint32_t rows = 0;    // grid, torus
  uint32_t cols = 0;    // grid, torus
  uint32_t degree = 0;  // random_regular
  double p = 0;         // erdos_renyi, in (0, 1)
  uint32_t k = 0;       // watts_strogatz: even, lattice neighbours per node
  double beta = 0;      // watts_strogatz, rewiring probability in [0, 1]
  uint32_t m = 0;       // barabasi_albert: edges per new node
  double radius = 0;    // random_geometric, in the unit square
  std::string file;     // edge_list, dot: path as resolved against the JSON file's folder

  ValueRange<SimTime> latency{kDefaultLatency, kDefaultLatency};
  ValueRange<uint64_t> bandwidth_bps{kDefaultBandwidthBps, kDefaultBandwidthBps};
  std::vector<EdgeOverride> overrides;
  /// Seed of the topology's own streams; when absent the caller's seed (scenario seed) is used.
  std::optional<uint64_t> seed;

  /// Where the spec came from ("scenarios/ring.json", "/topology"), named by build errors as
  /// "scenarios/ring.json: /topology/overrides/2: ...". Not part of the value: ignored by ==.
  std::string source_file;
  std::string source_pointer;

  bool operator==(const TopologySpec& o) const;
};

/// Largest node count any topology may have.
inline constexpr uint32_t kMaxNodes = 1000000;

/// The node count the spec describes: rows * cols for grid and torus, otherwise n (0 for a file
/// whose count comes from the file).
uint32_t node_count(const TopologySpec& spec);

/// What is wrong with a spec: `key` is the JSON key path below the topology object
/// ("n", "latency", "overrides/2/u"), so the loader can name the JSON pointer.
struct SpecProblem {
  std::string key;
  std::string message;
};
/// Whether find_spec_problem holds the edge count to kMaxEdges: always for a graph that is built;
/// an implicit complete underlay (sim/network/complete_links.hpp) builds no edges.
enum class EdgeLimit : uint8_t { kChecked, kUnchecked };
/// The first problem of `spec` (ranges, parity, sizes, overrides), or nullopt when it is valid.
/// build_topology throws it; the JSON loader reports it with the file and pointer.
std::optional<SpecProblem> find_spec_problem(const TopologySpec& spec,
                                             EdgeLimit limit = EdgeLimit::kChecked);

}  // namespace dlsim::topo

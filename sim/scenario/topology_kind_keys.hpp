// The keys a topology kind has of its own (beyond kind, n, latency, bandwidth, overrides and
// seed) and the spec field each one fills: the one list that reading a topology object
// (topology_json.cpp), writing it back (topology_json_io.cpp) and `dlsim topology` share.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <variant>

#include "topologies/topology_spec.hpp"

namespace dlsim {

struct TopologyKindKey {
  using Count = uint32_t topo::TopologySpec::*;
  using Number = double topo::TopologySpec::*;
  using File = std::string topo::TopologySpec::*;

  std::string name;
  /// None for a key that only sets the size (a hypercube's "dimension" gives n).
  std::variant<std::monostate, Count, Number, File> field;

  /// Calls f(value) with the field of `spec` this key fills (a uint32_t, a double or a path);
  /// nothing when it fills none. Spec: topo::TopologySpec, const or not.
  template <class Spec, class F>
  void with_field(Spec& spec, F&& f) const {
    std::visit(
        [&](auto member) {
          if constexpr (!std::is_same_v<decltype(member), std::monostate>) f(spec.*member);
        },
        field);
  }
};

/// `kind`'s own keys, in the order they are read and listed in errors.
std::span<const TopologyKindKey> topology_kind_keys(topo::TopologyKind kind);

}  // namespace dlsim

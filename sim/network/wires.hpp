// The physical network every transport moves messages over: the directed links (or an implicit
// complete underlay, complete_links.hpp), the agents' NIC uplinks and downlinks, the routes
// between nodes that are not neighbours (router.hpp) and the overload watch on each message's
// first serialiser. How messages share these is the transport's business (transport.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/signals.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/network/complete_links.hpp"
#include "sim/network/link.hpp"
#include "sim/network/network_config.hpp"
#include "sim/network/router.hpp"
#include "sim/network/send_buffers.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

/// A message's first link and the rest of its route (index into the router's store).
struct FirstHop {
  uint32_t link = kNoLink;
  uint32_t next_hop = Router::kEmptyRoute;
};

class Wires {
 public:
  /// Link i gets RandomStream(seed, "link", i); link ids as in router.hpp. Keeps a reference
  /// to `graph`, which must outlive it.
  Wires(const topo::Graph& graph, const NetworkConfig& config, uint64_t seed);

  /// Link id of a message on an implicit complete underlay: the direct link from -> to.
  static constexpr uint32_t kCompleteLink = 0xfffffffeu;

  uint32_t node_count() const { return graph_.node_count(); }
  uint32_t link_count() const { return static_cast<uint32_t>(links_.size()); }
  /// Whether the underlay is an implicit complete graph (no Link objects).
  const std::optional<CompleteLinks>& complete() const { return complete_; }
  Link& link(uint32_t id) { return links_[id]; }
  const Link& link(uint32_t id) const { return links_[id]; }
  const std::vector<Link>& links() const { return links_; }
  Serializer& uplink(uint32_t agent) { return uplinks_[agent]; }
  const Serializer& uplink(uint32_t agent) const { return uplinks_[agent]; }
  Serializer& downlink(uint32_t agent) { return downlinks_[agent]; }
  const Serializer& downlink(uint32_t agent) const { return downlinks_[agent]; }
  const std::vector<Serializer>& uplinks() const { return uplinks_; }
  const std::vector<Serializer>& downlinks() const { return downlinks_; }
  Router& router() { return router_; }
  const Router& router() const { return router_; }

  /// The directed link from -> to; kNoLink when they are not neighbours; kCompleteLink on an
  /// implicit complete underlay.
  uint32_t find_link(uint32_t from, uint32_t to) const;
  /// The first link of a message from -> to: the direct one unless there is none or
  /// `failures.down(it)`, else the router's current route.
  template <class Failures>
  FirstHop first_hop(uint32_t from, uint32_t to, const Failures& failures) {
    const uint32_t link = find_link(from, to);
    if (link != kNoLink && !failures.down(link)) return {link, Router::kEmptyRoute};
    const uint32_t route = router_.route(from, to);
    return {router_.hop(route), route + 1};
  }
  /// When `link` (from -> to on a complete underlay) is free again.
  SimTime busy_until(uint32_t from, uint32_t to, uint32_t link) const {
    return complete_ ? complete_->busy_until(from, to) : links_[link].busy_until();
  }
  /// Link::offer() on `link` (from -> to on a complete underlay).
  Link::Transfer offer(SimTime now, uint32_t from, uint32_t to, uint32_t link, uint64_t bytes) {
    return complete_ ? complete_->offer(now, from, to, bytes) : links_[link].offer(now, bytes);
  }
  /// Counts a message that reached the far end of `link` (a complete underlay counts nothing).
  void record_delivery(uint32_t link, uint64_t bytes) {
    if (!complete_) links_[link].record_delivery(bytes);
  }
  /// The node at the far end of `link`, which a message to `to` is on.
  uint32_t far_end(uint32_t link, uint32_t to) const {
    return complete_ ? to : link_target_[link];
  }
  /// The overload watch (send_buffers.hpp, LoadWatch) on the first serialiser of a message of
  /// `bytes` wire bytes from -> to entering `link` first: reports an overload to `listener`.
  void watch_load(Simulator& sim, SignalListener& listener, AgentId from, AgentId to,
                  uint32_t link, uint64_t bytes);

  /// Links, NICs, the overload watch, routes and the complete underlay, for checkpoints.
  void archive(StateArchive& ar);

 private:
  struct OutLink {  // adjacency with link ids, so a send to a neighbour reads one short run
    uint32_t to;
    uint32_t link;
  };

  const topo::Graph& graph_;
  std::vector<Link> links_;
  std::vector<uint32_t> link_target_;  // far end of each link
  std::vector<uint32_t> out_begin_;    // out_[out_begin_[i] .. out_begin_[i+1]): node i's links
  std::vector<OutLink> out_;           // sorted by neighbour
  std::vector<Serializer> uplinks_;
  std::vector<Serializer> downlinks_;
  Router router_;
  LoadWatch load_;                         // resources: uplink i, then link l at nodes + l
  std::optional<CompleteLinks> complete_;  // set: no links_, out_ or link_target_
};

}  // namespace dlsim

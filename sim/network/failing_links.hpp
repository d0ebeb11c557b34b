// Link failures as a component every transport uses (network.failures): the transports are
// templates on one of two policies with the same members, so neither they nor the Network ask
// whether failures are configured. NoFailures answers every question with "nothing failed"
// inline, so a run without failures pays nothing for them; FailingLinks follows the links'
// states (link_failures.hpp), keeps routes around down links (router.hpp) and walks a message's
// route for the links that are down or failed under it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/state_archive.hpp"
#include "sim/core/time.hpp"
#include "sim/network/link_failures.hpp"
#include "sim/network/messages.hpp"
#include "sim/network/router.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

/// Links that never fail.
class NoFailures {
 public:
  bool follow(SimTime /*now*/) { return false; }
  bool down(uint32_t /*link*/) const { return false; }
  bool failed_after(uint32_t /*link*/, SimTime /*since*/) const { return false; }
  bool enter(SimTime /*now*/, Slot& /*s*/) { return true; }
  void detour_if_down(SimTime /*now*/, Slot& /*s*/, uint32_t /*here*/) {}
  std::span<const uint32_t> went_down() const { return {}; }
  SimTime next_change() const { return SimTime::max(); }
  uint32_t first_down_hop(const Slot& /*s*/) const { return Slot::kNotLost; }
  uint32_t first_failed_hop(const Slot& /*s*/) const { return Slot::kNotLost; }
  void archive(StateArchive& /*ar*/) {}
};

/// Links that fail and are repaired. Link ids as in router.hpp (link l is on edge l >> 1).
class FailingLinks {
 public:
  /// Routes from now on avoid down links; `router` and `messages` outlive this.
  FailingLinks(const LinkFailureSpec& spec, const topo::Graph& graph, uint64_t seed,
               Router& router, Messages& messages);
  FailingLinks(FailingLinks&& other) noexcept;
  FailingLinks& operator=(FailingLinks&&) = delete;

  /// Applies the state changes up to `now`; true when some link changed state (the routes
  /// chosen before are forgotten then).
  bool follow(SimTime now);
  /// Whether `link` is down (as of the last follow()).
  bool down(uint32_t link) const { return failures_.down(link >> 1); }
  /// Whether `link` failed after `since`: a message that entered it then is lost.
  bool failed_after(uint32_t link, SimTime since) const {
    return failures_.failed_after(link >> 1, since);
  }
  /// Whether `s` may enter its link now (false: it is down); records when it did.
  bool enter(SimTime now, Slot& s);
  /// A message whose next link is down when it reaches it, at node `here`, takes the current
  /// route from there.
  void detour_if_down(SimTime now, Slot& s, uint32_t here);
  /// The edges that went down in the last follow() that returned true (link_failures.hpp).
  std::span<const uint32_t> went_down() const { return failures_.went_down(); }
  SimTime next_change() const { return failures_.next_change(); }
  /// The first hop of s's route (0 = its first link) whose link is down now; kNotLost: none.
  uint32_t first_down_hop(const Slot& s) const;
  /// The first hop of the links s's flow crosses that failed since it started; kNotLost: none.
  uint32_t first_failed_hop(const Slot& s) const;

  void archive(StateArchive& ar);

 private:
  void compact_routes();

  LinkFailures failures_;
  Router& router_;
  Messages& messages_;
  size_t compacted_store_ = 0;  // the route store's size after its last compaction
};

}  // namespace dlsim

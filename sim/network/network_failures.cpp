// Network's part for network.failures (network.hpp): following the links' states, forgetting
// and compacting routes, and losing the messages on a link that failed under them.
#include <vector>

#include "sim/network/network.hpp"

namespace dlsim {

// Applies the link state changes up to `now`; routes chosen before a change are forgotten.
bool Network::follow_failures(SimTime now) {
  if (!failures_->advance(now)) return false;
  router_.forget_routes();
  // Forgotten routes stay in the store while messages read them: compact it when it has grown
  // well past what the last compaction kept, so its size follows the traffic, not the run time.
  if (router_.store_size() > 2 * compacted_store_ + 4096) compact_routes();
  return true;
}

// A new route store holding only the rest of each live message's route.
void Network::compact_routes() {
  std::vector<uint32_t> hops{kNoLink};
  for (Slot& s : slots_) {
    if (s.stage == Stage::kFree || router_.hop(s.next_hop) == kNoLink) {
      s.next_hop = Router::kEmptyRoute;
      continue;
    }
    const auto start = static_cast<uint32_t>(hops.size());
    for (uint32_t h = s.next_hop; router_.hop(h) != kNoLink; ++h) hops.push_back(router_.hop(h));
    hops.push_back(kNoLink);
    s.next_hop = start;
  }
  compacted_store_ = hops.size();
  router_.replace_store(std::move(hops));
}

// Hop-by-hop routing around failures: a message whose next link is down when it reaches it
// takes the current route from `here` (which avoids down links when another path exists; else
// enter_link drops it at the down link).
void Network::detour_if_down(SimTime now, Slot& s, uint32_t here) {
  follow_failures(now);
  if (!failures_->down(s.link >> 1)) return;
  const uint32_t route = router_.route(here, s.message.to.value);
  s.link = router_.hop(route);
  s.next_hop = route + 1;
}

// Whether the message on its link was lost because the link failed after it entered; if so it
// is dropped (kLinkDown) and its slot freed.
bool Network::lost_to_failure(Simulator& sim, uint32_t slot) {
  if (!failures_) return false;
  follow_failures(sim.now());
  Slot& s = slots_[slot];
  if (!failures_->failed_after(s.link >> 1, s.entered)) return false;
  links_[s.link].record_loss(wire_bytes(s));
  listener_->message_dropped(signal(sim, s), DropReason::kLinkDown);
  free_slot(slot);
  return true;
}

}  // namespace dlsim

// Following the links' states (failing_links.hpp): forgetting and compacting routes, detours,
// and the walks along a message's route for links that are down or failed under it.
#include "sim/network/failing_links.hpp"

#include <utility>

namespace dlsim {

FailingLinks::FailingLinks(const LinkFailureSpec& spec, const topo::Graph& graph, uint64_t seed,
                           Router& router, Messages& messages)
    : failures_(spec, graph, seed), router_(router), messages_(messages) {
  router_.avoid(failures_.down_edges());
}

// The router keeps a pointer to the down edges it avoids: point it at the moved ones.
FailingLinks::FailingLinks(FailingLinks&& other) noexcept
    : failures_(std::move(other.failures_)),
      router_(other.router_),
      messages_(other.messages_),
      compacted_store_(other.compacted_store_) {
  router_.avoid(failures_.down_edges());
}

bool FailingLinks::follow(SimTime now) {
  if (!failures_.advance(now)) return false;
  router_.forget_routes();
  // Forgotten routes stay in the store while messages read them: compact it when it has grown
  // well past what the last compaction kept, so its size follows the traffic, not the run time.
  if (router_.store_size() > 2 * compacted_store_ + 4096) compact_routes();
  return true;
}

// A new route store holding only the rest of each live message's route.
void FailingLinks::compact_routes() {
  std::vector<uint32_t> hops{kNoLink};
  for (Slot& s : messages_.slots()) {
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

bool FailingLinks::enter(SimTime now, Slot& s) {
  follow(now);
  if (down(s.link)) return false;
  s.entered = now;
  return true;
}

// Hop-by-hop routing around failures: the current route from `here` avoids down links when
// another path exists; else the transport drops the message at the down link.
void FailingLinks::detour_if_down(SimTime now, Slot& s, uint32_t here) {
  follow(now);
  if (!down(s.link)) return;
  const uint32_t route = router_.route(here, s.message.to.value);
  s.link = router_.hop(route);
  s.next_hop = route + 1;
}

uint32_t FailingLinks::first_down_hop(const Slot& s) const {
  uint32_t next = s.next_hop;
  for (uint32_t link = s.link, hop = 0; link != kNoLink; link = router_.hop(next++), ++hop)
    if (down(link)) return hop;
  return Slot::kNotLost;
}

uint32_t FailingLinks::first_failed_hop(const Slot& s) const {
  uint32_t next = s.next_hop;
  for (uint32_t link = s.link, hop = 0; link != kNoLink && hop <= s.lost_hop;
       link = router_.hop(next++), ++hop)
    if (failed_after(link, s.entered)) return hop;
  return Slot::kNotLost;
}

void FailingLinks::archive(StateArchive& ar) {
  ar.value(compacted_store_);
  failures_.archive(ar);
}

}  // namespace dlsim

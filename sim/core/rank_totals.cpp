#include "sim/core/rank_totals.hpp"

#include <cstring>
#include <span>
#include <vector>

namespace dlsim {

RankTotals totals_over_ranks(const Simulator& sim, PartitionExchange& exchange) {
  return totals_over_ranks(sim.node_fingerprints(), sim.events_processed(), exchange);
}

RankTotals totals_over_ranks(std::span<const Fingerprint> nodes_here, uint64_t events,
                             PartitionExchange& exchange) {
  // Sent: the events handled, then each node's hash by node id.
  std::vector<uint64_t> mine{events};
  for (const Fingerprint& f : nodes_here) mine.push_back(f.value());
  const std::vector<std::vector<std::byte>> all =
      exchange.gather_to_rank_0(std::as_bytes(std::span(mine)));
  RankTotals totals;
  std::vector<Fingerprint> nodes;
  for (uint32_t r = 0; r < all.size(); ++r) {
    std::vector<uint64_t> words(all[r].size() / sizeof(uint64_t));
    DLSIM_CHECK(!words.empty(), "rank {} sent no totals", r);
    std::memcpy(words.data(), all[r].data(), words.size() * sizeof(uint64_t));
    totals.events_handled += words[0];
    if (nodes.size() < words.size() - 1) nodes.resize(words.size() - 1);
    for (size_t i = 1; i < words.size(); ++i) {
      const Fingerprint f = Fingerprint::resume_from(words[i]);
      if (f.untouched()) continue;
      DLSIM_CHECK(nodes[i - 1].untouched(), "node {} handled events on two ranks", i - 1);
      nodes[i - 1] = f;
    }
  }
  totals.fingerprint = combine_in_node_order(nodes);
  return totals;
}

}  // namespace dlsim

// The links of a complete physical graph whose links are all alike (the default underlay of a
// dynamic topology), kept implicit. Stored as Link objects, n(n-1) directed links take gigabytes
// at a few thousand agents (3.6 GB at 4,096) and every message to a random peer misses the cache
// on them. Here a link exists only while it has something to remember: a message serialising
// (busy_until > now), a backlog the overload watch is timing, or a warning given. A link in none
// of these states behaves exactly as one that never carried anything, so it is forgotten and its
// entry reused: memory grows with the links busy at once, never with how many pairs have talked.
//
// Timing is that of a Link (link.hpp). What differs from a materialised complete graph: loss
// and jitter are drawn from one stream per sender, RandomStream(seed, "complete_link", sender),
// in the order its messages enter their links (a Link has its own stream; with neither loss nor
// jitter the two give identical runs), and links keep no counters (the network's signals do).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/state_io.hpp"
#include "sim/core/time.hpp"
#include "sim/network/link.hpp"
#include "sim/network/send_buffers.hpp"

namespace dlsim {

class CompleteLinks {
 public:
  /// The links between every two of `nodes` nodes, each with `spec`.
  CompleteLinks(uint32_t nodes, const LinkSpec& spec, uint64_t seed);

  const LinkSpec& spec() const { return spec_; }
  /// When the link from -> to is free again (<= now: free).
  SimTime busy_until(uint32_t from, uint32_t to) const;
  /// Link::offer() on the link from -> to at `now` (non-decreasing over calls).
  Link::Transfer offer(SimTime now, uint32_t from, uint32_t to, uint64_t bytes);
  /// LoadWatch::offered() for the link from -> to.
  std::optional<double> watch_load(SimTime now, uint32_t from, uint32_t to, uint64_t bytes,
                                   SimTime* since);
  /// Links remembered now, over all senders (tests: it stays bounded).
  size_t remembered() const;

  void save(StateWriter& out) const;
  void load(StateReader& in);

 private:
  struct Remembered {  // written to checkpoints as is: no unnamed padding
    uint32_t to;
    uint32_t unused = 0;
    SimTime busy_until;
    LoadWatch::State load;
  };
  Remembered& remember(SimTime now, uint32_t from, uint32_t to);

  LinkSpec spec_;
  std::vector<std::vector<Remembered>> links_;  // per sender; short: its links in use
  std::vector<RandomStream> random_;            // per sender; empty without loss and jitter
};

}  // namespace dlsim

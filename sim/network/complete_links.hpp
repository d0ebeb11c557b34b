// The links of a complete physical graph whose links are all alike, kept implicit: as Link
// objects, 4,096 agents' n(n-1) links take 3.5 GB and miss the cache on every message. A link is
// remembered only while it differs from one that never carried anything: a message serialising,
// a backlog the overload watch is timing, or a warning given (kept for good, 40 B: a link warns
// once per run). Memory grows with the links busy at once and those that overloaded, never with
// how many pairs have talked.
//
// Timing is that of a Link (link.hpp). Unlike a materialised graph, loss and jitter come from
// one stream per sender, RandomStream(seed, "complete_link", sender) (with neither, runs are
// identical), and links keep no counters (the network's signals do).
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/state_archive.hpp"
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

  void archive(StateArchive& ar);

 private:
  struct Remembered {  // written to checkpoints as is: no unnamed padding
    uint32_t to;
    uint32_t unused = 0;
    SimTime busy_until;
    LoadWatch::State load;
  };
  static_assert(std::has_unique_object_representations_v<Remembered>);
  Remembered& remember(SimTime now, uint32_t from, uint32_t to);

  LinkSpec spec_;
  std::vector<std::vector<Remembered>> links_;  // per sender; short: its links in use
  std::vector<RandomStream> random_;            // per sender; empty without loss and jitter
};

}  // namespace dlsim

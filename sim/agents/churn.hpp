// Agents that leave and come back (docs/algorithms.md, "Churn"): who is online in each sync
// round, or at each async agent's iteration start. A trace gives each agent's offline intervals; a Markov model alternates exponential
// online and offline durations per agent, drawn lazily from the stream (seed, "churn", agent) as
// the rounds advance, so memory stays one state per agent however long the run. An agent is
// online for a whole round when it is online at the round's start.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

/// An agent is offline from `from` up to (not including) `until`; SimTime::max(): for ever.
using OfflineInterval = TimeInterval;

enum class ChurnKind { kTrace, kMarkov };
/// What a returning agent starts from: its own stale model, or a live neighbour's (one message).
enum class Rejoin { kStale, kPull };

struct ChurnSpec {
  ChurnKind kind = ChurnKind::kTrace;
  std::string file;  ///< trace: the CSV it came from (rendered back into the scenario)
  std::vector<std::vector<OfflineInterval>> offline;  ///< trace: per agent, sorted, disjoint
  SimTime mean_online;   ///< markov
  SimTime mean_offline;  ///< markov
  double start_offline = 0.0;  ///< markov: probability that an agent starts offline
  Rejoin rejoin = Rejoin::kStale;
  bool operator==(const ChurnSpec&) const = default;
};

class Churn {
 public:
  /// Precondition: a trace has n lists (possibly empty); markov means are > 0.
  Churn(const ChurnSpec& spec, uint32_t n, uint64_t seed);

  /// Sets who is online for the round starting at `now` (non-decreasing over calls).
  void begin_round(SimTime now);
  /// Async mode: sets whether `agent` is online for its iteration starting at `now`
  /// (non-decreasing over the agent's calls); the others are left as they are.
  void begin_iteration(uint32_t agent, SimTime now);
  bool online(uint32_t agent) const { return online_[agent] != 0; }
  /// Online this round after being offline in the previous one.
  bool returned(uint32_t agent) const { return online_[agent] && !was_online_[agent]; }
  bool was_online(uint32_t agent) const { return was_online_[agent] != 0; }
  uint32_t online_count() const { return online_count_; }
  Rejoin rejoin() const { return spec_.rejoin; }
  /// The stream a returning agent draws the neighbour it pulls from.
  RandomStream& rejoin_stream(uint32_t agent) { return rejoin_rng_[agent]; }

  /// For checkpoints.
  void archive(StateArchive& ar);

 private:
  bool markov_online(uint32_t agent, SimTime now);
  bool trace_online(uint32_t agent, SimTime now);

  ChurnSpec spec_;
  std::vector<uint8_t> online_, was_online_;
  uint32_t online_count_ = 0;
  std::vector<RandomStream> rng_, rejoin_rng_;
  std::vector<uint8_t> markov_state_;   // markov: 1 online, 0 offline, until next_switch_
  std::vector<SimTime> next_switch_;
  std::vector<uint32_t> cursor_;        // trace: first interval that may still matter
};

}  // namespace dlsim

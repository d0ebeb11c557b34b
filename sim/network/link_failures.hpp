// Physical links that fail and are repaired (docs/algorithms.md, "Time", link failures): which
// edges of the physical graph are down at a given simulated time. A failure takes both
// directions of an edge down. A trace lists each edge's down intervals; the Markov model
// alternates exponential up and down durations per edge (means mtbf and mttr), drawn from the
// stream (seed, "link_failure", edge). State changes are applied lazily, in time order, when the
// network next looks (advance): nothing is scheduled here, and memory is one state per edge
// however long the run. (Under maxmin the network schedules an event at next_change() while
// flows are active, so that it looks at every change that could cut a flow.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/core/time.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

enum class FailureKind : uint8_t { kNone, kTrace, kMarkov };

/// One line of a failure trace: the link between nodes u < v is down over `down`.
struct LinkDownInterval {
  uint32_t u = 0;
  uint32_t v = 0;
  TimeInterval down;
  uint64_t line = 0;  ///< in the trace file, for errors
  bool operator==(const LinkDownInterval&) const = default;
};

struct LinkFailureSpec {
  FailureKind kind = FailureKind::kNone;
  std::string file;                         ///< trace: the CSV it came from
  std::vector<LinkDownInterval> intervals;  ///< trace: sorted by (u, v, start), disjoint per pair
  SimTime mtbf;                             ///< markov: mean time between failures (up), > 0
  SimTime mttr;                             ///< markov: mean time to repair (down), > 0
  bool operator==(const LinkFailureSpec&) const = default;
};

class LinkFailures {
 public:
  /// Every link starts up. Throws InputError "FILE:LINE: no link between U and V" for a trace
  /// line that names two nodes that are not neighbours in `graph`.
  LinkFailures(const LinkFailureSpec& spec, const topo::Graph& graph, uint64_t seed);

  /// Applies every state change at or before `now` (non-decreasing over calls), in time order.
  /// Returns true when some link changed state.
  bool advance(SimTime now) {
    return !changes_.empty() && changes_.front().at <= now && apply_until(now);
  }
  /// Whether edge `edge` is down (as of the last advance()).
  bool down(uint32_t edge) const { return down_[edge] != 0; }
  /// Whether edge `edge` failed after `since`: a message that entered it at `since` is lost.
  bool failed_after(uint32_t edge, SimTime since) const { return last_failure_[edge] > since; }
  /// The edges that went down during the last advance() that returned true, in change order
  /// (an edge may be listed more than once; it may be up again since).
  const std::vector<uint32_t>& went_down() const { return went_down_; }
  /// When the next state change not yet applied is due; SimTime::max(): none is.
  SimTime next_change() const { return changes_.empty() ? SimTime::max() : changes_.front().at; }
  /// Per edge, 1 while down: what routing avoids.
  const std::vector<uint8_t>& down_edges() const { return down_; }
  /// Edges that went down so far, counting each failure.
  uint64_t failures() const { return failures_; }

  void archive(StateArchive& ar);

 private:
  struct Change {  // edge's next state change
    SimTime at;
    uint32_t edge;
  };
  bool apply_until(SimTime now);
  void schedule(uint32_t edge, SimTime at);
  SimTime change_after(uint32_t edge, SimTime now);

  FailureKind kind_;
  SimTime mtbf_, mttr_;
  std::vector<uint8_t> down_;
  std::vector<SimTime> last_failure_;  // SimTime{-1}: never failed
  std::vector<Change> changes_;        // min-heap on (at, edge): one per edge that still changes
  uint64_t failures_ = 0;
  std::vector<uint32_t> went_down_;    // scratch of apply_until(): not part of a checkpoint
  std::vector<RandomStream> random_;   // markov: per edge
  std::vector<uint32_t> trace_begin_;  // trace: trace_[trace_begin_[e] ..) are e's intervals
  std::vector<TimeInterval> trace_;
  std::vector<uint32_t> cursor_;       // trace: e's current or next interval
};

}  // namespace dlsim

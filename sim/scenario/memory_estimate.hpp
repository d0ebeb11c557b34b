// The memory a run will need, estimated from its scenario before anything large is allocated, so
// that a scenario that cannot fit is refused with the key that made it large (exit 2) instead of
// ending in std::bad_alloc or an OOM kill hours in. `dlsim validate` prints it and summary.json
// puts it beside the measured peak (time.peak_rss_mb).
//
// What is counted (docs/memory.md has the derivation and the measured accuracy):
//   process  the binary, libraries, thread stacks and allocator overhead: a constant;
//   data     the dataset as read, its limited copy, the evaluation subset, each agent's shard;
//   params   per agent, the parameter-sized vectors: x and g, the optimizer's state, the copies
//            the algorithm holds (broadcast snapshots, mixing workspaces) and, for quadratic
//            models, the target c_i; plus the algorithm's shared vectors (EASGD's centre);
//   work     per agent, the model's activation buffers and scratch (a probe model, see
//            models/workspace_probe.hpp) and its mini-batch buffer;
//   agents   per agent, what does not scale with the model: streams, queues, bookkeeping;
//   links    a complete physical graph's n(n-1)/2 edges (the default underlay of a dynamic
//            topology); other graphs' O(n) edges are small beside the agents.
//   in flight  async runs: the model copies a sender keeps alive while its messages travel,
//            from the slowest link's time per model against the fastest step, bounded by the
//            iterations and by what the send buffers hold (network.send_buffer per destination).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/scenario/graph_degrees.hpp"
#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

struct MemoryPart {
  std::string name;     // "process", "data", "params", "work", "agents", "links"
  std::string pointer;  // the scenario key that scales this part, for error messages
  uint64_t bytes = 0;
  std::string detail;  // how it was counted, e.g. "10 agents x 5 vectors x 198760 x 4 B"
};

struct MemoryEstimate {
  std::vector<MemoryPart> parts;
  uint64_t parameters = 0;         // per agent
  double vectors_per_agent = 0.0;  // parameter-sized vectors per agent (params part)

  uint64_t total_bytes() const;
  /// The part with the most bytes: the one a refusal names.
  const MemoryPart& largest() const;
};

/// The largest share of one MPI rank in a run over `ranks` ranks (run_plan.hpp, rank_share):
/// the most agents a rank holds in full, and the most agents other ranks hold whose models come
/// into one rank's block (those with a neighbour in it). One process: all agents, none.
struct RankShare {
  uint32_t ranks = 1;
  uint64_t held = 0;
  uint64_t senders = 0;
};

/// What the estimate knows of one agent's model, from a probe model (models/workspace_probe.hpp)
/// when that is small and quick on this machine, otherwise from the activations' lower bound.
struct ModelFacts {
  uint64_t parameters = 0;
  double flops_per_step = 0.0;    ///< one training step of one agent
  uint64_t work_bytes = 0;        ///< workspace of one agent's model
  uint64_t sample_floats = 0;     ///< features per sample
  uint64_t activation_bytes = 0;  ///< per sample of a forward pass
  uint64_t batch = 0;             ///< the largest batch a forward pass runs
};

/// Estimates runs of `spec` (validated, and outliving the estimator): it probes the model once,
/// then estimates before the graphs exist and over the graphs' degrees. `available_bytes` only
/// chooses which key a refusal would name.
class MemoryEstimator {
 public:
  MemoryEstimator(const ScenarioSpec& spec, uint64_t available_bytes);
  MemoryEstimator(ScenarioSpec&&, uint64_t) = delete;  // it keeps a reference

  /// A lower bound from the scenario alone: the algorithm's copies at degree 0 (they grow with
  /// the degree) and none in flight (how many depends on the degrees, not always growing with
  /// them).
  MemoryEstimate before_graphs() const;
  /// The same lower bound for the largest rank's share (its senders, unknown yet, as none).
  MemoryEstimate before_graphs(const RankShare& share) const;
  /// The estimate over graphs of these degrees.
  MemoryEstimate estimate(const GraphDegrees& degrees) const;
  /// The estimate of the largest rank's share of a run over MPI ranks.
  MemoryEstimate estimate(const GraphDegrees& degrees, const RankShare& share) const;

 private:
  MemoryEstimate estimate(const GraphDegrees& degrees, bool in_flight,
                          const RankShare& share) const;

  const ScenarioSpec& spec_;
  uint64_t available_bytes_;
  uint64_t batch_;  // samples per training step of one agent
  ModelFacts model_;
};

/// InputError naming spec.file and the largest part's key when the estimate exceeds
/// `available_bytes`, with the estimate, its parts and the memory available.
void check_memory_fits(const ScenarioSpec& spec, const MemoryEstimate& estimate,
                       uint64_t available_bytes);

/// "1.23 GiB", "456 MiB", "789 KiB": sizes in messages and validate's output.
std::string format_bytes(uint64_t bytes);

}  // namespace dlsim

// All-reduce SGD and Local SGD over a ring all-reduce (docs/algorithms.md, "All-reduce SGD and
// Local SGD"). The ring is agents 0 -> 1 -> ... -> n-1 -> 0, embedded in the graph: each stage's
// chunk is routed along shortest paths by the network. A reduction takes 2(n-1) stages; at each
// stage every agent sends a 1/n share of the vector to its successor once it got the previous
// stage's share from its predecessor, so the round time is that of the pipelined ring. The
// arithmetic is the exact mean in agent order (the same result the ring computes, without its
// rounding order).
// - kGradients (all-reduce SGD): every iteration the gradients are averaged, then every agent
//   takes the same optimizer step: all agents stay identical.
// - kModels (Local SGD): after every tau local steps (iterations k with (k+1) mod tau = 0), every
//   agent's model is replaced by the mean model.
#pragma once

#include <vector>

#include "sim/agents/algorithm.hpp"
#include "sim/agents/round_hooks.hpp"
#include "sim/agents/trigger.hpp"

namespace dlsim {

enum class ReduceWhat { kGradients, kModels };

class RingAllReduce final : public Algorithm, public RoundHooks {
 public:
  /// trigger: always for kGradients; always or periodic for kModels (the same for every agent).
  RingAllReduce(ReduceWhat what, const TriggerSpec& trigger);

  void start(std::span<Agent> agents) override;
  void prepare(Agent& a) override;
  void communicate(Agent& a, Outbox& out) override;
  void receive(Agent& a, const Message& m, Outbox& out) override;
  void update(Agent& a) override;
  void archive(AgentArchive& ar) override;
  bool collective() const override { return true; }
  void before_updates(std::span<Agent> agents) override;
  void after_updates(std::span<Agent> agents) override;

 private:
  void send_stage(const Agent& a, uint32_t stage, Outbox& out) const;
  bool round_reduces(std::span<Agent> agents) const;

  ReduceWhat what_;
  Trigger trigger_;
  uint32_t n_ = 0;
  uint64_t chunk_bytes_ = 0;
  std::vector<char> fire_;   // per agent: reduces this iteration
  ParamVector mean_;         // the reduced vector of this iteration
};

}  // namespace dlsim

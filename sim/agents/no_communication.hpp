// No communication: every agent trains alone on its shard (the lower baseline).
#pragma once

#include "sim/agents/algorithm.hpp"

namespace dlsim {

class NoCommunication final : public Algorithm {
 public:
  void start(std::span<Agent>) override {}
  void prepare(Agent&) override {}
  void communicate(Agent&, Outbox&) override {}
  void receive(Agent&, const Message&, Outbox&) override {}
  void update(Agent& a) override { a.learner->apply_step(a.x, a.g, a.iteration); }
  void archive(AgentArchive&) override {}  // nothing but the agents' own state
};

}  // namespace dlsim

// An optional interface (an extension point, docs/architecture.md "Adding an algorithm") for
// algorithms with a node that is not an agent: EASGD's parameter server, node n of the network
// graph after the agents 0..n-1 (its descriptor's network_graph adds it). An algorithm opts in by
// deriving from ServiceNode besides Algorithm; the swarm and the evaluation look for it once per
// run (dynamic_cast).
#pragma once

#include "sim/agents/agent.hpp"
#include "sim/agents/algorithm.hpp"
#include "sim/agents/message.hpp"

namespace dlsim {

class ServiceNode {
 public:
  virtual ~ServiceNode() = default;
  /// A message to the service node (m.to >= the number of agents), in event order.
  virtual void receive_service(const Message& m, Outbox& out) = 0;
  /// The model the node keeps (EASGD's centre variable z), scored at every evaluation point;
  /// null when it keeps none.
  virtual const ParamVector* center_model() const { return nullptr; }
};

/// `algorithm`'s centre model, or null when it has no service node or the node keeps none.
inline const ParamVector* center_model_of(const Algorithm& algorithm) {
  const auto* node = dynamic_cast<const ServiceNode*>(&algorithm);
  return node ? node->center_model() : nullptr;
}

}  // namespace dlsim

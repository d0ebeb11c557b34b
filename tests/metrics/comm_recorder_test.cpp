#include "sim/metrics/comm_recorder.hpp"

#include <doctest/doctest.h>

using namespace dlsim;

TEST_CASE("the communication recorder counts each signal for the node it belongs to") {
  CommRecorder comm(3);
  const SimTime t = SimTime::from_ms(1);
  comm.message_sent({t, AgentId{0}, AgentId{2}, 100});
  comm.message_sent({t, AgentId{0}, AgentId{1}, 40});
  comm.message_delivered({t, AgentId{0}, AgentId{2}, 100});
  comm.message_dropped({t, AgentId{0}, AgentId{1}, 40}, DropReason::kLoss);
  comm.trigger_fired(AgentId{0}, 0, t);
  comm.trigger_fired(AgentId{0}, 3, t);
  comm.trigger_fired(AgentId{1}, 3, t);
  CHECK(comm.node(AgentId{0}).sent == TrafficCount{2, 140});
  CHECK(comm.node(AgentId{0}).dropped == TrafficCount{1, 40});  // the sender's loss
  CHECK(comm.node(AgentId{0}).received == TrafficCount{0, 0});
  CHECK(comm.node(AgentId{2}).received == TrafficCount{1, 100});
  CHECK(comm.node(AgentId{0}).events == 2);
  CHECK(comm.node(AgentId{1}).events == 1);
  const NodeTraffic all = comm.total();
  CHECK(all.events == 3);
  CHECK(all.sent == TrafficCount{2, 140});
  CHECK(comm.events() == 3);  // the running count equals the sum
}

TEST_CASE("tensor sends: a listed message adds its tensors, a whole model every tensor") {
  CommRecorder comm(2, {"dense1.weight", "dense1.bias", "dense2.weight"});
  const std::vector<uint32_t> first_two = {0, 1};
  comm.tensors_sent(AgentId{0}, &first_two, TensorSend::kSent);
  comm.tensors_sent(AgentId{0}, nullptr, TensorSend::kSent);  // the whole model
  comm.tensors_sent(AgentId{1}, nullptr, TensorSend::kSent);
  CHECK(comm.tensor_sends() == std::vector<uint64_t>{3, 3, 2});
  CHECK(comm.node(AgentId{0}).model_messages == 2);
  CHECK(comm.node(AgentId{0}).tensor_sends == 5);
  CHECK(comm.total().tensor_sends == 8);
  // A superseded message withdraws exactly what it added.
  comm.tensors_sent(AgentId{0}, &first_two, TensorSend::kWithdrawn);
  comm.tensors_sent(AgentId{1}, nullptr, TensorSend::kWithdrawn);
  CHECK(comm.tensor_sends() == std::vector<uint64_t>{1, 1, 1});
  CHECK(comm.node(AgentId{0}).model_messages == 1);
  CHECK(comm.node(AgentId{0}).tensor_sends == 3);
  CHECK(comm.node(AgentId{1}).model_messages == 0);
  CHECK(comm.node(AgentId{1}).tensor_sends == 0);
}

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

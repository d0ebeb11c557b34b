#include "sim/run/message_shipping.hpp"

#include "sim/agents/agent_archive.hpp"
#include "sim/core/state_io.hpp"

namespace dlsim {

MessageShipping::MessageShipping(Swarm& swarm)
    : swarm_(swarm),
      sent_(swarm.sim().partitions()),
      received_numbers_(swarm.sim().partitions()),
      received_(swarm.network().graph().node_count()) {
  swarm.sim().set_shipping(EventKind::kLinkArrival, *this);
  swarm.sim().set_shipping(EventKind::kDelivery, *this);
}

void MessageShipping::pack(const Event& e, uint32_t to_rank, std::vector<std::byte>& out) {
  swarm_.network().hand_over(e.payload, where_);
  Message content = swarm_.take_in_flight(e.payload);
  StateWriter writer(out);
  AgentArchive ar(writer);
  ar.share_numbers(sent_.at(to_rank));  // which keeps the snapshot alive until the window's end
  where_.archive(ar);
  ar.message(content);
}

uint32_t MessageShipping::unpack(const Event& e, uint32_t from_rank,
                                 std::span<const std::byte> content) {
  StateReader reader(content, "a message from another rank");
  AgentArchive ar(reader);
  ar.share_numbers(received_numbers_.at(from_rank));
  ar.take_snapshots_from(received_.at(e.agent.value));
  Message m;
  where_.archive(ar);
  ar.message(m);
  reader.finish();
  const uint32_t slot = swarm_.network().take_over(where_);
  swarm_.put_in_flight(slot, std::move(m));
  return slot;
}

}  // namespace dlsim

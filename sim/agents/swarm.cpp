#include "sim/agents/swarm.hpp"

namespace dlsim {

void Swarm::send(Message m) {
  const uint32_t slot = network_.send(sim_, m.from, m.to, m.size_bytes, 0);
  if (slot >= in_flight_.size()) in_flight_.resize(slot + 1);
  in_flight_[slot] = std::move(m);
}

bool Swarm::dispatch(const Event& e) {
  if (network_.handle(sim_, e)) return true;
  if (e.kind() != EventKind::kDelivery) return false;
  const Message m = std::move(in_flight_[e.payload]);
  in_flight_[e.payload] = Message{};
  network_.release(e.payload);
  algorithm_.receive(agents_[m.to.value], m, *this);
  return true;
}

}  // namespace dlsim

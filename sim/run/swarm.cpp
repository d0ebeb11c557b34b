#include "sim/run/swarm.hpp"

namespace dlsim {

void Swarm::send(Message m) {
  const SendResult r = network_.offer(sim_, m.from, m.to, m.size_bytes, m.buffering);
  if (r.outcome == SendOutcome::kDropped) return;
  if (r.outcome == SendOutcome::kSent && m.uncompressed_bytes != 0)
    listener_.message_compressed(m.from, m.uncompressed_bytes, m.size_bytes);
  if (!network_.in_flight(r.slot)) return;  // lost on its first link: nothing to keep
  if (r.slot >= in_flight_.size()) in_flight_.resize(r.slot + 1);
  in_flight_[r.slot] = std::move(m);  // a superseded message's content is replaced
}

SimTime Swarm::ready_at(AgentId a) {
  const SimTime now = sim_.now();
  const SimTime until = network_.blocked_until(a);
  if (until <= now) return now;
  listener_.sender_blocked(a, until - now);
  return until;
}

bool Swarm::dispatch(const Event& e) {
  if (network_.handle(sim_, e)) {
    // A later link may have lost it: release the content (a snapshot) as soon as that is known.
    if (!network_.in_flight(e.payload)) in_flight_[e.payload] = Message{};
    return true;
  }
  if (e.kind() != EventKind::kDelivery) return false;
  const Message m = std::move(in_flight_[e.payload]);
  in_flight_[e.payload] = Message{};
  network_.release(e.payload);
  if (m.to.value < agents_.size())
    algorithm_.receive(agents_[m.to.value], m, *this);
  else
    algorithm_.receive_service(m, *this);  // EASGD's server: a node that is not an agent
  return true;
}

void Swarm::save(SnapshotSaver& out) const {
  out.put_all(in_flight_);
}

void Swarm::load(SnapshotLoader& in) {
  in.get_all(in_flight_);
}

}  // namespace dlsim

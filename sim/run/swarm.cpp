#include "sim/run/swarm.hpp"

#include "sim/core/error.hpp"

namespace dlsim {

namespace {

// Whether m carries model tensors for the per-tensor counts (signals.hpp, tensors_sent): a model,
// a part of one or a compressed change, sent by an algorithm (a rejoin model is churn's; requests
// and all-reduce chunks carry neither).
bool carries_tensors(const Message& m) {
  return (m.params || payload_carries_model(m.payload)) && m.kind != MessageKind::kRejoinModel;
}

}  // namespace

void Swarm::send(Message m) {
  const SendResult r = network_.offer(sim_, m.from, m.to, m.size_bytes, m.buffering);
  if (r.outcome == SendOutcome::kDropped) return forget_pull(m);
  // It superseded a waiting copy that its first link had already lost (network.hpp, offer()):
  // it is lost with that copy, which was counted as the one on the wire.
  if (r.outcome == SendOutcome::kSuperseded && !network_.in_flight(r.slot)) return forget_pull(m);
  if (r.outcome == SendOutcome::kSent && m.uncompressed_bytes != 0)
    listener_.message_compressed(m.from, m.uncompressed_bytes, m.size_bytes);
  if (r.outcome == SendOutcome::kSuperseded && carries_tensors(in_flight_[r.slot])) {
    const Message& old = in_flight_[r.slot];
    listener_.tensors_sent(old.from, payload_tensors(old.payload), TensorSend::kWithdrawn);
  }
  if (carries_tensors(m))
    listener_.tensors_sent(m.from, payload_tensors(m.payload), TensorSend::kSent);
  if (!network_.in_flight(r.slot)) return forget_pull(m);  // lost on its first link
  if (r.slot >= in_flight_.size()) in_flight_.resize(r.slot + 1);
  in_flight_[r.slot] = std::move(m);  // a superseded message's content is replaced
}

SimTime Swarm::ready_at(AgentId a) {
  const SimTime now = sim_.now();
  const SimTime until = network_.blocked_until(a);
  if (until <= now) return now;
  if (until == SimTime::max()) {
    if (waiting_since_.empty()) waiting_since_.assign(agents_.size(), SimTime::max());
    waiting_since_[a.value] = now;
    return until;
  }
  listener_.sender_blocked(a, until - now);
  return until;
}

bool Swarm::dispatch(const Event& e) {
  if (network_.handle(sim_, e)) {
    // A later link may have lost it: release the content (a snapshot) as soon as that is known.
    // A link change (maxmin with failures) may have cut any flows: every lost one is released.
    if (e.kind() == EventKind::kLinkChange) {
      for (uint32_t slot = 0; slot < in_flight_.size(); ++slot)
        if (!network_.in_flight(slot)) {
          forget_pull(in_flight_[slot]);
          in_flight_[slot] = Message{};
        }
    } else if (!network_.in_flight(e.payload)) {
      forget_pull(in_flight_[e.payload]);
      in_flight_[e.payload] = Message{};
    }
    return true;
  }
  if (e.kind() == EventKind::kSenderReady) {
    const uint32_t i = e.agent.value;
    const SimTime now = sim_.now();
    // Nobody waits (a reply blocked the node between its steps), or it is blocked again.
    if (i >= waiting_since_.size() || waiting_since_[i] == SimTime::max() ||
        network_.blocked_until(e.agent) > now)
      return true;
    listener_.sender_blocked(e.agent, now - waiting_since_[i]);
    waiting_since_[i] = SimTime::max();
    return false;
  }
  if (e.kind() != EventKind::kDelivery) return false;
  const Message m = std::move(in_flight_[e.payload]);
  in_flight_[e.payload] = Message{};
  network_.release(e.payload);
  if (m.kind == MessageKind::kRejoinModel) {
    Agent& a = agents_[m.to.value];
    a.x = *m.params;  // same size: copies into a's buffer
    algorithm_.model_replaced(a);
    if (!awaiting_model_.empty()) awaiting_model_[a.id.value] = 0;
  } else if (m.to.value < agents_.size()) {
    algorithm_.receive(agents_[m.to.value], m, *this);
  } else {  // EASGD's server: a node that is not an agent
    DLSIM_CHECK(service_ != nullptr,
                "node {} is no agent and the algorithm has no service "
                "node, but it got a message from agent {}",
                m.to.value, m.from.value);
    service_->receive_service(m, *this);
  }
  return true;
}

void Swarm::begin_round() {
  if (!churn_) return;
  churn_->begin_round(sim_.now());
  pulling_.assign(agents_.size(), 0);
  for (const Agent& a : agents_) {
    const uint32_t i = a.id.value;
    network_.set_online(a.id, churn_->online(i));
    // Over MPI ranks every rank follows every agent's churn (its draws are the agent's own), but
    // only the agent's rank reports it, so that the ranks' counts add up.
    if (!sim_.runs_here(a.id)) continue;
    if (churn_->online(i) != churn_->was_online(i))
      listener_.agent_online(a.id, churn_->online(i), sim_.now());
    if (churn_->returned(i) && churn_->rejoin() == Rejoin::kPull) start_pull(a, pulling_);
    if (!computes(a.id)) listener_.agent_sat_out(a.id, sim_.now());
  }
}

bool Swarm::begin_iteration(AgentId a) {
  if (!churn_) return true;
  const uint32_t i = a.value;
  churn_->begin_iteration(i, sim_.now());
  const bool online = churn_->online(i);
  network_.set_online(a, online);
  if (online != churn_->was_online(i)) listener_.agent_online(a, online, sim_.now());
  if (online && churn_->returned(i) && churn_->rejoin() == Rejoin::kPull) {
    if (awaiting_model_.empty()) awaiting_model_.assign(agents_.size(), 0);
    start_pull(agents_[i], awaiting_model_);
  }
  const bool computes = online && (awaiting_model_.empty() || !awaiting_model_[i]);
  if (!computes) listener_.agent_sat_out(a, sim_.now());
  return computes;
}

// A live neighbour (online in the previous round too, so its model is current) is drawn
// uniformly; with none the agent goes on from its own stale model.
void Swarm::start_pull(const Agent& a, std::vector<uint8_t>& waiting) {
  const uint32_t i = a.id.value;
  live_.clear();
  network_.for_each_neighbor(i, [&](uint32_t j) {
    if (j < agents_.size() && churn_->online(j) && churn_->was_online(j)) live_.push_back(j);
  });
  if (live_.empty()) return;
  const uint32_t j = live_[churn_->rejoin_stream(i).below(live_.size())];
  const Agent& from = agents_[j];
  const uint64_t bytes = static_cast<uint64_t>(from.x.size()) * sizeof(float);
  waiting[i] = 1;  // before the send, which may lose it at once (async: forget_pull)
  send(Message(MessageKind::kRejoinModel, from.id, a.id, std::make_shared<ParamVector>(from.x),
               bytes));
}

// Sync checkpoints are taken between rounds: pulls are over, and begin_round() sets the
// network's online flags again from the churn's state. Async ones come between events, each
// agent online or not for the iteration it is in: its flag is set here.
void Swarm::archive(AgentArchive& ar) {
  ar.list(in_flight_);
  ar.vector(waiting_since_);
  ar.vector(awaiting_model_);
  if (ar.loading() && !awaiting_model_.empty() && awaiting_model_.size() != agents_.size())
    ar.fail("another number of agents");
  if (!churn_) return;
  churn_->archive(ar);
  if (ar.loading())  // the network's view of who is online follows the loaded churn
    for (const Agent& a : agents_) network_.set_online(a.id, churn_->online(a.id.value));
}

}  // namespace dlsim

// The agents' side of the network, the algorithm's Outbox in a run: puts the algorithm's messages
// on the wire and hands deliveries back to it, and reports its events as signals. The network
// moves byte counts; the message content (a shared snapshot) waits here, indexed by the
// network's message slot. A message's path: Algorithm -> Outbox::send (here) -> Network::send
// -> link events -> kDelivery -> Swarm::dispatch (here) -> Algorithm::receive.
#pragma once

#include <span>
#include <vector>

#include "sim/agents/algorithm.hpp"
#include "sim/agents/agent_archive.hpp"
#include "sim/agents/churn.hpp"
#include "sim/agents/service_node.hpp"
#include "sim/core/simulator.hpp"
#include "sim/network/network.hpp"

namespace dlsim {

class Swarm final : public Outbox {
 public:
  /// Keeps references to all of them; they outlive the swarm. Events go to `listener`.
  Swarm(Simulator& sim, Network& network, Algorithm& algorithm, std::span<Agent> agents,
        SignalListener& listener = ignore_signals())
      : sim_(sim),
        network_(network),
        algorithm_(algorithm),
        service_(dynamic_cast<ServiceNode*>(&algorithm)),
        agents_(agents),
        listener_(listener) {}

  void send(Message m) override;
  void event(const Agent& a) override { listener_.trigger_fired(a.id, a.iteration, sim_.now()); }
  /// When agent a may start computing its next step: now, or later when a full send buffer
  /// blocks it (network.when_full "block", or a message that must arrive); signals the wait.
  /// SimTime::max() under network.sharing "maxmin", where the end of the wait is not known yet:
  /// the agent waits for a kSenderReady event, which dispatch() hands to the driver.
  SimTime ready_at(AgentId a);
  /// Routes one event: network events to the network, kDelivery to the receiving agent's
  /// algorithm (a churn rejoin model to the agent itself). Returns false for any other kind
  /// (the driver's own), and for a kSenderReady that ends a wait begun by ready_at() (signals
  /// the wait; the driver schedules the agent's next step). Other kSenderReady: true.
  bool dispatch(const Event& e);

  /// Agents that leave and return (null: none); `churn` outlives the swarm.
  void set_churn(Churn* churn) { churn_ = churn; }
  /// Sync rounds: decides who is online from now on (signals the changes, tells the network)
  /// and starts the rejoin pulls of agents that came back (rejoin "pull": a live neighbour,
  /// drawn from the agent's rejoin stream, sends it its model; the agent computes again from
  /// the next round). No-op without churn.
  void begin_round();
  /// Async mode: decides whether agent a is online for its iteration starting now (signals a
  /// change, tells the network) and returns whether it computes in it; an offline agent's
  /// iteration passes without a step (signalled), as do a returning agent's iterations until its
  /// rejoin model ("pull") arrived or was lost. True without churn.
  bool begin_iteration(AgentId a);
  /// Whether agent a computes, sends and updates in this round.
  bool computes(AgentId a) const {
    return !churn_ || (churn_->online(a.value) && !pulling_[a.value]);
  }

  Simulator& sim() { return sim_; }
  Network& network() { return network_; }
  Algorithm& algorithm() { return algorithm_; }
  std::span<Agent> agents() { return agents_; }

  /// The contents of the messages in flight, for checkpoints (with the network's own state).
  void archive(AgentArchive& ar);
  /// A run over MPI ranks: the content of the message in `slot`, taken out as the message
  /// leaves for another rank (message_shipping.hpp), and put into a slot here as one arrives.
  Message take_in_flight(uint32_t slot) {
    Message m = std::move(in_flight_.at(slot));
    in_flight_[slot] = Message{};
    return m;
  }
  void put_in_flight(uint32_t slot, Message m) {
    if (slot >= in_flight_.size()) in_flight_.resize(slot + 1);
    in_flight_[slot] = std::move(m);
  }

 private:
  /// Sends agent a a live neighbour's model, setting waiting[a] first (none live: nothing).
  void start_pull(const Agent& a, std::vector<uint8_t>& waiting);
  /// Message m will not arrive: an async agent waiting for it as its rejoin model goes on.
  void forget_pull(const Message& m) {
    if (m.kind == MessageKind::kRejoinModel && !awaiting_model_.empty())
      awaiting_model_[m.to.value] = 0;
  }

  Simulator& sim_;
  Network& network_;
  Algorithm& algorithm_;
  ServiceNode* service_;  // the algorithm's node that is not an agent; null when it has none
  std::span<Agent> agents_;
  SignalListener& listener_;
  // Indexed by network slot; an entry is cleared when its message is delivered or lost, so a
  // snapshot lives no longer than its messages. The table never outgrows the live messages.
  std::vector<Message> in_flight_;
  Churn* churn_ = nullptr;
  std::vector<uint8_t> pulling_;  // per agent: waiting for its rejoin model this round
  std::vector<uint8_t> awaiting_model_;  // async, per agent: until its rejoin model arrives
  std::vector<uint32_t> live_;    // workspace: a returning agent's live neighbours
  // Per agent: since when it waits for a kSenderReady (max: it does not); empty until one does.
  std::vector<SimTime> waiting_since_;
};

}  // namespace dlsim

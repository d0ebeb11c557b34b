// How messages share the wires (wires.hpp): the one interface behind which the Network façade
// (network.hpp) drives either sharing model. FIFO (fifo_transport.hpp) serialises each message
// on one link or NIC after another, store-and-forward; max-min (flow_transport.hpp) carries it
// as one flow over its whole route at its fair share. Each takes link failures as a component
// (failing_links.hpp). The façade owns the message slots and the signals common to both; a
// transport owns its send buffers, its events and where a message is on its way.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/core/event.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/network/failing_links.hpp"
#include "sim/network/messages.hpp"
#include "sim/network/network_config.hpp"
#include "sim/network/send_buffers.hpp"
#include "sim/network/wires.hpp"
#include "topologies/graph.hpp"

namespace dlsim {

class Transport {
 public:
  virtual ~Transport() = default;

  /// Brings the links' states up to sim.now() and picks the first link of a message from -> to.
  virtual FirstHop route(Simulator& sim, uint32_t from, uint32_t to) = 0;
  /// The send buffer's decision on a message of `bytes` wire bytes from -> to offered now, whose
  /// first link is `link`, to be recorded in `slot`; *start: when it would start on the wire.
  virtual SendBuffers::Decision admit(SimTime now, uint32_t from, uint32_t to, uint64_t bytes,
                                      uint32_t link, Buffering buffering, uint32_t slot,
                                      SimTime* start) = 0;
  /// Puts the message admitted in `slot` (its message and first hop filled in) on its way.
  virtual void launch(Simulator& sim, uint32_t slot, SimTime start) = 0;
  /// The transport's own events: kNicRelease and kLinkArrival, or kFlowEnd and kLinkChange.
  virtual void handle(Simulator& sim, const Event& event) = 0;
  /// At the kDelivery of `slot`: true when it turns out lost on its way (then it is dropped and
  /// its slot freed); false: it arrived (the links that carried it have counted it).
  virtual bool lost_on_arrival(Simulator& sim, uint32_t slot) = 0;
  /// When `node`'s send buffers are back within their bound (Network::blocked_until).
  virtual SimTime blocked_until(uint32_t node) const = 0;
  /// Whether `link` is down now (the last time the transport looked).
  virtual bool link_down(uint32_t link) const = 0;
  /// When the message in `slot` leaves its send buffer for the wire (SimTime{}: it is on its
  /// way): until then a newer copy may replace its content (Network::content_final_at).
  virtual SimTime leaves_buffer_at(uint32_t slot) const = 0;
  /// The send buffers, flows and failure state, for checkpoints.
  virtual void archive(StateArchive& ar) = 0;
};

/// T<NoFailures> or T<FailingLinks>, as config.failures asks: the one place that looks.
/// T(wires, messages, send buffer config, failures) is a transport.
template <template <class> class T>
std::unique_ptr<Transport> make_with_failures(const NetworkConfig& config,
                                              const topo::Graph& graph, uint64_t seed,
                                              Wires& wires, Messages& messages) {
  if (config.failures.kind == FailureKind::kNone)
    return std::make_unique<T<NoFailures>>(wires, messages, config.send_buffer, NoFailures{});
  return std::make_unique<T<FailingLinks>>(
      wires, messages, config.send_buffer,
      FailingLinks(config.failures, graph, seed, wires.router(), messages));
}

/// FIFO store-and-forward (Sharing::kFifo) over `wires`, with config.failures; both arguments
/// outlive it.
std::unique_ptr<Transport> make_fifo_transport(const NetworkConfig& config,
                                               const topo::Graph& graph, uint64_t seed,
                                               Wires& wires, Messages& messages);
/// Max-min fair flows (Sharing::kMaxMin) over `wires`, with config.failures.
std::unique_ptr<Transport> make_flow_transport(const NetworkConfig& config,
                                               const topo::Graph& graph, uint64_t seed,
                                               Wires& wires, Messages& messages);

}  // namespace dlsim

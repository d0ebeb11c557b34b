#include "sim/metrics/comm_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace dlsim {

NodeTraffic& NodeTraffic::operator+=(const NodeTraffic& other) {
  events += other.events;
  sent += other.sent;
  received += other.received;
  dropped += other.dropped;
  bytes_saved += other.bytes_saved;
  superseded += other.superseded;
  buffer_dropped += other.buffer_dropped;
  blocked += other.blocked;
  model_messages += other.model_messages;
  tensor_sends += other.tensor_sends;
  return *this;
}

CommRecorder::CommRecorder(uint32_t nodes, std::vector<std::string> tensor_names)
    : nodes_(nodes), online_(nodes, 1), tensor_names_(std::move(tensor_names)),
      tensor_sends_(tensor_names_.size(), 0) {}

// A withdrawn message adds its counts back with the opposite sign (unsigned wrap-around is exact).
void CommRecorder::tensors_sent(AgentId from, const std::vector<uint32_t>* tensors,
                                TensorSend how) {
  const uint64_t one = how == TensorSend::kSent ? 1 : ~uint64_t{0};  // +1 or -1
  NodeTraffic& n = nodes_[from.value];
  n.model_messages += one;
  if (!tensors) {
    n.tensor_sends += one * tensor_sends_.size();
    for (uint64_t& count : tensor_sends_) count += one;
    return;
  }
  n.tensor_sends += one * tensors->size();
  for (const uint32_t p : *tensors) {
    DLSIM_CHECK(p < tensor_sends_.size(), "agent {} sent tensor {} of a model with {}", from.value,
                p, tensor_sends_.size());
    tensor_sends_[p] += one;
  }
}

void CommRecorder::add(const CommRecorder& other) {
  DLSIM_CHECK(
      other.nodes_.size() == nodes_.size() && other.tensor_sends_.size() == tensor_sends_.size(),
      "adding the counts of {} nodes to {}", other.nodes_.size(), nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    nodes_[i] += other.nodes_[i];
    online_[i] = online_[i] & other.online_[i];
  }
  events_ += other.events_;
  peak_queued_bytes_ = std::max(peak_queued_bytes_, other.peak_queued_bytes_);
  if (other.overloaded_links_ > 0) {
    const uint64_t before = overloaded_links_;
    link_overloaded(other.worst_);  // keeps the worse of the two
    overloaded_links_ = before + other.overloaded_links_;
  }
  for (size_t r = 0; r < dropped_by_reason_.size(); ++r)
    dropped_by_reason_[r] += other.dropped_by_reason_[r];
  rounds_sat_out_ += other.rounds_sat_out_;
  for (size_t t = 0; t < tensor_sends_.size(); ++t) tensor_sends_[t] += other.tensor_sends_[t];
}

NodeTraffic CommRecorder::total() const {
  NodeTraffic sum;
  for (const NodeTraffic& n : nodes_) sum += n;
  return sum;
}

}  // namespace dlsim

namespace dlsim {

// The worst by utilisation, ties broken by time and link: which link comes first among equals
// must not depend on the order links are reported in (a partitioned run reports its
// partitions' in turn).
void CommRecorder::link_overloaded(const LinkOverload& o) {
  auto rank = [](const LinkOverload& l) {
    return std::make_tuple(-l.utilisation, l.at.ns, l.from.value, l.to.value);
  };
  if (overloaded_links_++ == 0 || rank(o) < rank(worst_)) worst_ = o;
}

std::optional<std::string> CommRecorder::overload_warning() const {
  if (overloaded_links_ == 0) return std::nullopt;
  const LinkOverload& w = worst_;
  const std::string link = w.from == w.to ? fmt::format("the NIC uplink of agent {}", w.from.value)
                                          : fmt::format("link {} -> {}", w.from.value, w.to.value);
  return fmt::format(
      "network: {} ({}) was offered {:.0f} % of what it carries over {:.3f} s of simulated time "
      "from t = {:.3f} s{}; messages waited in send buffers (network.send_buffer, "
      "network.when_full): fewer messages (a trigger, compression) or faster links help",
      link, format_rate(w.bandwidth_bps), 100.0 * w.utilisation, (w.at - w.since).seconds(),
      w.since.seconds(),
      overloaded_links_ > 1
          ? fmt::format(", and {} more links were overloaded too", overloaded_links_ - 1)
          : "");
}

}  // namespace dlsim

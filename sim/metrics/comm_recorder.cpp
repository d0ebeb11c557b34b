#include "sim/metrics/comm_recorder.hpp"

#include <algorithm>

namespace dlsim {

NodeTraffic& NodeTraffic::operator+=(const NodeTraffic& other) {
  events += other.events;
  sent += other.sent;
  received += other.received;
  dropped += other.dropped;
  return *this;
}

NodeTraffic CommRecorder::total(uint32_t first_n) const {
  NodeTraffic sum;
  const size_t end = std::min<size_t>(first_n, nodes_.size());
  for (size_t i = 0; i < end; ++i) sum += nodes_[i];
  return sum;
}

}  // namespace dlsim

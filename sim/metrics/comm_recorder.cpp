#include "sim/metrics/comm_recorder.hpp"

namespace dlsim {

NodeTraffic& NodeTraffic::operator+=(const NodeTraffic& other) {
  events += other.events;
  sent += other.sent;
  received += other.received;
  dropped += other.dropped;
  bytes_saved += other.bytes_saved;
  return *this;
}

NodeTraffic CommRecorder::total() const {
  NodeTraffic sum;
  for (const NodeTraffic& n : nodes_) sum += n;
  return sum;
}

}  // namespace dlsim

// One directed link on its own: serialisation, propagation, FIFO queueing, loss and jitter.
#include "sim/network/link.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>

#include "sim/core/random.hpp"

using namespace dlsim;

namespace {

constexpr uint64_t kGbps = 1000000000;

Link make_link(SimTime latency, uint64_t bandwidth_bps, double loss = 0.0, SimTime jitter = {},
               uint64_t index = 0) {
  return Link(LinkSpec{latency, bandwidth_bps, loss, jitter}, RandomStream(1, "link", index));
}

}  // namespace

TEST_CASE("a 1-byte message over 1 Gbps and 1 ms arrives after the latency plus 8 ns") {
  Link link = make_link(SimTime::from_ms(1), kGbps);
  const Link::Transfer t = link.offer(SimTime{}, 1);
  CHECK_FALSE(t.lost);
  CHECK(t.arrival.ns == 1000008);
  CHECK(link.busy_until().ns == 8);  // the wire is busy for the serialisation only
}

TEST_CASE("a 1e9-byte message over 1 Gbps takes 8 s of serialisation plus the latency") {
  Link link = make_link(SimTime::from_ms(1), kGbps);
  CHECK(link.offer(SimTime{}, 1000000000).arrival.ns == 8001000000);
}

TEST_CASE("serialisation time rounds up to whole nanoseconds") {
  // 1 byte at 3 bit/s: 8/3 s = 2666666666.67 ns -> 2666666667 ns.
  Link link = make_link(SimTime{}, 3);
  CHECK(link.offer(SimTime{}, 1).arrival.ns == 2666666667);
}

TEST_CASE("two messages offered together are serialised FIFO, the second one serialisation later") {
  Link link = make_link(SimTime::from_ms(1), kGbps);
  // 1000 bytes at 1 Gbps = 8000 ns each; propagation overlaps the second transmission.
  CHECK(link.offer(SimTime{}, 1000).arrival.ns == 8000 + 1000000);
  CHECK(link.offer(SimTime{}, 1000).arrival.ns == 16000 + 1000000);
  CHECK(link.busy_until().ns == 16000);
}

TEST_CASE("a message offered while the wire is busy waits, one offered later does not") {
  Link link = make_link(SimTime::from_us(10), kGbps);
  CHECK(link.offer(SimTime{}, 1000).arrival.ns == 8000 + 10000);
  CHECK(link.offer(SimTime::from_ns(4000), 1000).arrival.ns == 16000 + 10000);   // waits 4000 ns
  CHECK(link.offer(SimTime::from_ns(50000), 1000).arrival.ns == 58000 + 10000);  // idle wire
}

TEST_CASE("link counters count what was sent and dropped at the offer, delivered when recorded") {
  Link link = make_link(SimTime::from_ms(1), kGbps);
  link.offer(SimTime{}, 100);
  link.offer(SimTime{}, 20);
  CHECK(link.counters().sent == TrafficCount{2, 120});
  CHECK(link.counters().delivered == TrafficCount{0, 0});
  link.record_delivery(100);
  CHECK(link.counters().delivered == TrafficCount{1, 100});
  CHECK(link.counters().dropped == TrafficCount{0, 0});
}

TEST_CASE("loss 1.0 drops every message, counts it, and still occupies the wire") {
  Link link = make_link(SimTime::from_ms(1), kGbps, 1.0);
  for (int i = 0; i < 10; ++i) CHECK(link.offer(SimTime{}, 1000).lost);
  CHECK(link.counters().sent == TrafficCount{10, 10000});
  CHECK(link.counters().dropped == TrafficCount{10, 10000});
  CHECK(link.busy_until().ns == 80000);
}

TEST_CASE("loss 0.3 drops about 30 percent, the same messages for the same seed") {
  auto drops = [](uint64_t index) {
    Link link = make_link(SimTime{}, kGbps, 0.3, SimTime{}, index);
    uint64_t lost_mask_hash = 0;
    for (int i = 0; i < 10000; ++i)
      lost_mask_hash = mix64(lost_mask_hash ^ link.offer(SimTime{}, 1).lost);
    return std::pair{link.counters().dropped.messages, lost_mask_hash};
  };
  const auto [dropped, pattern] = drops(0);
  // Binomial(10000, 0.3): mean 3000, standard deviation 46; five deviations either side.
  CHECK(dropped >= 2770);
  CHECK(dropped <= 3230);
  CHECK(drops(0) == std::pair{dropped, pattern});
  CHECK(drops(1).second != pattern);  // another link's stream loses other messages
}

TEST_CASE("jitter keeps every arrival within base and base plus jitter, spread across it") {
  const SimTime jitter = SimTime::from_us(100);
  Link link = make_link(SimTime::from_ms(1), kGbps, 0.0, jitter);
  int64_t lowest = jitter.ns;
  int64_t highest = 0;
  double sum = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    // One message per millisecond: the wire is idle at every offer, so base = t + 1000 ns + 1 ms.
    const SimTime at = SimTime::from_ms(i);
    const int64_t extra = link.offer(at, 125).arrival.ns - (at.ns + 1000 + 1000000);
    CHECK(extra >= 0);
    CHECK(extra <= jitter.ns);
    lowest = std::min(lowest, extra);
    highest = std::max(highest, extra);
    sum += static_cast<double>(extra);
  }
  CHECK(lowest < 10000);
  CHECK(highest > 90000);
  CHECK(sum / 1000 == doctest::Approx(50000).epsilon(0.1));
}

TEST_CASE("the serialiser of a NIC queues FIFO and a zero-rate one is transparent") {
  Serializer nic(kGbps);
  CHECK(nic.finish(SimTime{}, 1000).ns == 8000);
  CHECK(nic.finish(SimTime{}, 1000).ns == 16000);
  CHECK(nic.finish(SimTime::from_ns(20000), 1000).ns == 28000);
  Serializer none;
  CHECK_FALSE(none.enabled());
  CHECK(none.finish(SimTime::from_ns(5), 1000).ns == 5);
}

// network_bench's traffic in SimGrid, for the speed comparison in docs/performance.md: N = side^2
// hosts on a 2-D torus of 1 ms, 1 Gbps directed links, each sending 1 KB to each of its 4
// neighbours every 1 ms (first send at a phase uniform in [0, 1 ms)), received by one actor per
// host (its mailbox's permanent receiver, so that every transfer starts when it is put).
// SimGrid's CM02 model with its factors set to 1, no cross-traffic and no RTT weighting: plain
// max-min sharing of each link among the comms crossing it, latency added, as dlsim's
// network.sharing "maxmin".
// With "nic", every route starts with its sender's 1 Gbps uplink (a link without latency), as
// network_bench's "nic" mode: the 4 messages an agent sends at once share it. Reports the
// messages received and messages/s (CPU time of the simulation). Optional: built only when
// SimGrid is found (Debian's libsimgrid-dev), and only on request (--target simgrid_torus).
// Usage: simgrid_torus [side = 16] [simulated ms = 20] [direct | nic = direct]
// version.h uses macros that s4u.hpp defines.
// clang-format off
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
// clang-format on

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

constexpr uint64_t kMessageBytes = 1000;
constexpr double kPeriod = 0.001;
constexpr double kBytesPerS = 1.25e8;  // 1 Gbps: SimGrid's bandwidths are in bytes per second
uint64_t received = 0;
int payload = 0;

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

uint32_t at(uint32_t side, uint32_t r, uint32_t c) { return (r % side) * side + (c % side); }

}  // namespace

int main(int argc, char** argv) {
  const uint32_t side = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 16;
  const double end = (argc > 2 ? std::atof(argv[2]) : 20.0) / 1000.0;
  const bool nic = argc > 3 && std::string(argv[3]) == "nic";
  std::vector<std::string> options{"simgrid_torus",
                                   "--cfg=network/model:CM02",
                                   "--cfg=network/latency-factor:1",
                                   "--cfg=network/bandwidth-factor:1",
                                   "--cfg=network/weight-S:0",
                                   "--cfg=network/crosstraffic:0",
                                   "--log=root.thres:critical"};
  std::vector<char*> args;
  for (std::string& o : options) args.push_back(o.data());
  int count = static_cast<int>(args.size());
  sg4::Engine engine(&count, args.data());

  const uint32_t n = side * side;
  auto* zone = sg4::create_full_zone("torus");
  std::vector<sg4::Host*> hosts;
  for (uint32_t i = 0; i < n; ++i) hosts.push_back(zone->create_host("h" + std::to_string(i), 1e9));
  std::vector<std::vector<uint32_t>> partners(n);
  for (uint32_t r = side; r < 2 * side; ++r)
    for (uint32_t c = side; c < 2 * side; ++c) {
      const uint32_t i = at(side, r, c);
      sg4::Link* uplink =
          nic ? zone->create_link("up" + std::to_string(i), kBytesPerS)->seal() : nullptr;
      partners[i] = {at(side, r - 1, c), at(side, r, c - 1), at(side, r, c + 1),
                     at(side, r + 1, c)};
      for (const uint32_t j : partners[i]) {
        sg4::Link* link =
            zone->create_link("l" + std::to_string(i) + "-" + std::to_string(j), kBytesPerS)
                ->set_latency(0.001)
                ->seal();
        std::vector<sg4::LinkInRoute> route{sg4::LinkInRoute(link)};
        if (nic) route.insert(route.begin(), sg4::LinkInRoute(uplink));
        zone->add_route(hosts[i]->get_netpoint(), hosts[j]->get_netpoint(), nullptr, nullptr, route,
                        false);
      }
    }
  zone->seal();

  uint64_t state = 1;  // a fixed LCG for the phases
  for (uint32_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double phase = static_cast<double>(state >> 11) / 9007199254740992.0 * kPeriod;
    sg4::Mailbox* own = sg4::Mailbox::by_name("m" + std::to_string(i));
    std::vector<sg4::Mailbox*> to;
    for (const uint32_t j : partners[i])
      to.push_back(sg4::Mailbox::by_name("m" + std::to_string(j)));
    sg4::Actor::create("send" + std::to_string(i), hosts[i], [to, phase, end] {
      for (double t = phase; t < end; t += kPeriod) {
        sg4::this_actor::sleep_until(t);
        for (sg4::Mailbox* m : to) m->put_init(&payload, kMessageBytes)->detach();
      }
      sg4::this_actor::sleep_until(end);
    });
    sg4::Actor::create("recv" + std::to_string(i), hosts[i], [own] {
      // A permanent receiver: comms start when put, as dlsim's messages do, rather than when a
      // get() matches them (one at a time per receiver).
      own->set_receiver(sg4::Actor::self());
      for (;;) {
        own->get<int>();
        ++received;
      }
    })->daemonize();
  }
  const double start = cpu_seconds();
  engine.run();
  const double seconds = cpu_seconds() - start;
  std::printf("%s, %s: %u hosts, %.0f simulated ms, %llu messages, %.3f s CPU, %.0f msgs/s\n",
              SIMGRID_VERSION_STRING, nic ? "nic" : "direct", n, end * 1000.0,
              static_cast<unsigned long long>(received), seconds,
              static_cast<double>(received) / seconds);
}

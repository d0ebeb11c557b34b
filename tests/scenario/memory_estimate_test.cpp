#include "sim/scenario/memory_estimate.hpp"

#include <doctest/doctest.h>

#include "scenario_test_helpers.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/run_plan.hpp"

using namespace dlsim;
using dlsim::testing::with;
using nlohmann::json;

namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

json mlp_scenario() {
  return json::parse(R"({
    "name": "t", "agents": 8,
    "data": {"dataset": "synthetic-clusters", "synthetic": {"classes": 4, "width": 16}},
    "model": {"kind": "mlp", "hidden": [64]},
    "algorithm": {"kind": "none"},
    "run": {"iterations": 10}
  })");
}

ScenarioSpec spec_of(const json& j) { return parse_scenario(j, "s.json"); }

double vectors(const json& j) { return estimate_memory(spec_of(j), 16 * kGiB).vectors_per_agent; }

std::string refusal(const json& j, uint64_t available) {
  const ScenarioSpec s = spec_of(j);
  return testing::input_error_of([&] { plan_run(s, available); });
}

}  // namespace

TEST_CASE("a model too large for memory is refused naming its key, the estimate and the memory") {
  // Ten million hidden units: 210 million parameters, and 40 MB of activations per sample.
  const std::string e = refusal(with(mlp_scenario(), "/model/hidden", {10000000}), 16 * kGiB);
  CHECK(e.starts_with("s.json: /model/hidden: the run needs an estimated "));
  CHECK(e.find("for work: 8 agents x ") != std::string::npos);
  CHECK(e.find("but 16 GiB of memory is available") != std::string::npos);
  const ScenarioSpec s = spec_of(with(mlp_scenario(), "/model/hidden", {10000000}));
  CHECK(estimate_memory(s, 16 * kGiB).parameters == 210000004);
  // The same model fits when the machine is large enough: the check compares, it does not guess.
  CHECK(refusal(with(mlp_scenario(), "/model/hidden", {10000000}), 1024 * 1024 * kGiB).empty());
}

TEST_CASE("too many agents are refused naming /agents") {
  json j = json::parse(R"({"name": "q", "agents": 1000000, "model": {"kind": "quadratic",
      "dim": 1000}, "algorithm": {"kind": "detsgrad"}, "trigger": {"kind": "threshold", "v0": 1},
      "run": {"iterations": 1}})");
  CHECK(refusal(j, 16 * kGiB).starts_with("s.json: /agents: the run needs an estimated "));
}

TEST_CASE("a huge evaluation batch is named when activations dominate") {
  json j = with(mlp_scenario(), "/model/hidden", {100000});
  j = with(j, "/run/eval_batch", 100000);
  j = with(j, "/run/eval_samples", 100000);
  j = with(j, "/data/synthetic/test", 100000);
  // 100,000 samples x 100,000 activations x 4 B = 37 GiB per agent, found without allocating it.
  CHECK(refusal(j, 16 * kGiB).starts_with("s.json: /run/eval_batch: "));
}

TEST_CASE("the estimate counts the vectors each algorithm and optimizer holds") {
  const json base = mlp_scenario();
  CHECK(vectors(base) == 2.0);  // x and g
  CHECK(vectors(with(base, "/optimizer", {{"kind", "momentum"}})) == 3.0);
  json detsgrad = with(base, "/algorithm", {{"kind", "detsgrad"}});
  detsgrad = with(detsgrad, "/trigger", {{"kind", "threshold"}, {"v0", 1}});
  CHECK(vectors(detsgrad) == 5.0);  // + broadcast, pending snapshot, consensus cache
  CHECK(vectors(with(detsgrad, "/time/mode", "async")) > 5.0);  // + copies in flight
  // CHOCO on a ring: x^_i and a copy per neighbour; a dense quantizer's messages add two vectors.
  json choco = with(base, "/algorithm", {{"kind", "choco"}, {"gamma", 0.5}});
  choco = with(choco, "/trigger", {{"kind", "always"}});
  CHECK(vectors(choco) == 5.0);
  CHECK(vectors(with(choco, "/algorithm/compression", {{"kind", "sign"}})) == 7.0);
  // top 1 %: two messages of k indices and k values.
  CHECK(vectors(with(choco, "/algorithm/compression", {{"kind", "top_k"}, {"fraction", 0.01}})) ==
        doctest::Approx(5.04).epsilon(0.01));
}

TEST_CASE("the estimate grows with the agents, the model and the data as they do") {
  const ScenarioSpec small = spec_of(mlp_scenario());
  const ScenarioSpec twice = spec_of(with(mlp_scenario(), "/agents", 16));
  const MemoryEstimate a = estimate_memory(small, 16 * kGiB);
  const MemoryEstimate b = estimate_memory(twice, 16 * kGiB);
  auto part = [](const MemoryEstimate& e, const std::string& name) {
    for (const MemoryPart& p : e.parts)
      if (p.name == name) return p.bytes;
    FAIL("no part " << name);
    return uint64_t{0};
  };
  CHECK(part(b, "params") == 2 * part(a, "params"));
  CHECK(part(b, "work") == 2 * part(a, "work"));
  CHECK(part(b, "data") == part(a, "data"));  // shared by every agent
  CHECK(a.parameters == 16 * 64 + 64 + 64 * 4 + 4);
  // Data: 6000 + 1000 samples of 16 floats and a label, the 1000-sample evaluation subset, and
  // the shards' 6000 indices.
  CHECK(part(a, "data") == (7000 + 1000) * (16 * 4 + 1) + 6000 * 4);
}

TEST_CASE("sizes read as people write them") {
  CHECK(format_bytes(512 * 1024) == "512 KiB");
  CHECK(format_bytes(3 * 1024 * 1024 + 512 * 1024) == "3.5 MiB");
  CHECK(format_bytes(16 * kGiB) == "16 GiB");
}

TEST_CASE("async runs add the copies in flight: link time over step time, bounded by the buffers") {
  // Quadratic agents of 1,000 parameters (4,000 B); a step takes 1 ms; a model 4 ms on an
  // 8 Mbit/s link plus 1 ms of latency: 5 copies made while the first travels, and the next.
  const json base = json::parse(R"({"name": "q", "agents": 100,
      "model": {"kind": "quadratic", "dim": 1000},
      "topology": {"dynamic": {"kind": "epidemic", "s": 3}},
      "network": {"bandwidth": "8Mbps", "latency": "1ms"},
      "algorithm": {"kind": "dpsgd"}, "time": {"mode": "async", "compute": {"step": "1ms"}},
      "run": {"iterations": 100}})");
  auto in_flight = [](const json& j) -> double {
    const MemoryEstimate e = estimate_memory(spec_of(j), 16 * kGiB);
    for (const MemoryPart& p : e.parts)
      if (p.name == "in flight") {
        CHECK(p.pointer == "/network/bandwidth");
        return static_cast<double>(p.bytes) / (100.0 * 4000.0);  // copies per agent
      }
    return 0.0;
  };
  // 6 alive, one of them counted with the algorithm's own. A destination gets 3 / 99 of the
  // copies, far less than its link carries: nothing waits.
  CHECK(in_flight(base) == 5.0);
  CHECK(in_flight(with(base, "/time/mode", "sync")) == 0.0);
  CHECK(in_flight(with(base, "/run/iterations", 3)) == 2.0);  // no more than the iterations
  CHECK(in_flight(with(base, "/network/bandwidth", "80Mbps")) == 2.0);  // 1.4 ms: 3 alive
  json quick = with(with(base, "/network/bandwidth", "1Gbps"), "/network/latency", "0.5ms");
  CHECK(in_flight(quick) == 0.0);  // 0.53 ms: only its own
  CHECK(in_flight(with(quick, "/network/latency", "1ms")) == 2.0);  // 1.03 ms: latency counts
  CHECK(in_flight(with(base, "/time/compute/step", "2ms")) == 3.0);     // 3 made, and the next
  // A step of 1 us: the first copy to each of the 99 destinations is still on the wire, and two
  // wait for each, from the last 2 x 99 / 3 iterations: 99 + 66 + 1 alive.
  json fast = with(with(base, "/time/compute/step", "1us"), "/run/iterations", 1000);
  CHECK(in_flight(fast) == 165.0);
  CHECK(in_flight(with(fast, "/network/send_buffer", 8)) == 99.0 + 264.0);
  CHECK(in_flight(with(fast, "/run/iterations", 100)) == 99.0);
  // A static ring of alike links: an iteration's copy travels to both neighbours together; one
  // on the wire, two waiting, the next one.
  const json ring = with(base, "/topology", {{"kind", "ring"}});
  CHECK(in_flight(ring) == 3.0);
  // 10 ms of latency, 32 us of transmission: every link carries 10 copies at once, none waits.
  json far = with(with(ring, "/network/latency", "10ms"), "/network/bandwidth", "1Gbps");
  CHECK(in_flight(far) == 10.0);
  // Gossip picks one neighbour at a time: one on each of the 2 links, two waiting for each.
  json gossip = with(ring, "/algorithm", {{"kind", "gossip"}});
  gossip = with(gossip, "/trigger", {{"kind", "always"}});
  CHECK(in_flight(gossip) == 6.0);
  // A top 1 % message holds 10 values and 10 indices, a fiftieth of a copy, and is on the wire
  // for 80 us: 1.08 ms with the latency, 3 alive.
  CHECK(in_flight(with(base, "/algorithm/compression", {{"kind", "top_k"}, {"fraction", 0.01}})) ==
        doctest::Approx(0.04));
}

TEST_CASE("Byzantine senders add their crafted vectors: attackers x 2 x the largest degree") {
  json j = with(mlp_scenario(), "/algorithm", {{"kind", "dpsgd"}});  // a ring: degree 2
  const auto crafted = [](const json& scenario) {
    for (const MemoryPart& p : estimate_memory(spec_of(scenario), 16 * kGiB).parts)
      if (p.name == "crafted") return p.bytes;
    return uint64_t{0};
  };
  CHECK(crafted(j) == 0);
  const uint64_t parameters = 16 * 64 + 64 + 64 * 4 + 4;
  j["byzantine"] = {{"agents", {1, 5}}, {"attack", {{"kind", "sign_flip"}}}};
  CHECK(crafted(j) == 2 * 2 * 2 * parameters * 4);
  j["byzantine"]["attack"] = {{"kind", "label_flip"}};  // honest messages: nothing crafted
  j["data"]["synthetic"]["classes"] = 10;
  CHECK(crafted(j) == 0);
}

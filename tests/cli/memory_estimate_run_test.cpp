// The memory estimate against the peak a run measures, where copies in flight dominate: async
// D-PSGD over an epidemic overlay whose links carry a model far slower than an agent steps.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "../skip.hpp"
#include "in_process_cli.hpp"

using nlohmann::json;
using dlsim::testing::run_dlsim;
using dlsim::testing::scratch;
using dlsim::testing::summary;

TEST_CASE("async runs count the copies their messages keep alive in flight, within 25 %") {
#if defined(__SANITIZE_ADDRESS__)
  dlsim::skip_test("AddressSanitizer's shadow memory and quarantine inflate the peak");
  return;
#endif
  // 20 agents of 100,000 parameters (400 KB): a model takes 33 ms on a 100 Mbit/s link, a step
  // 6 us, so each agent makes its 30 copies before the first one arrives, and they all stay
  // alive: the first to each of 19 destinations on the wire, the two newest waiting for each.
  const std::string dir = scratch("in-flight");
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/epidemic.json";
  std::ofstream(file) << R"({"name": "in-flight", "agents": 20,
    "model": {"kind": "quadratic", "dim": 100000},
    "topology": {"dynamic": {"kind": "epidemic", "s": 3}}, "network": {"bandwidth": "100Mbps"},
    "algorithm": {"kind": "dpsgd"}, "time": {"mode": "async"},
    "run": {"iterations": 30, "eval_every": 30}})";
  const std::string out = dir + "/run";
  const auto r = run_dlsim({"run", file, "-o", out, "--quiet", "--threads", "1"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const json time = summary(out)["time"];
  const double estimate = time["memory_estimate_mb"].get<double>();
  const double peak = time["peak_rss_mb"].get<double>();
  CHECK_MESSAGE(estimate > 0.75 * peak, estimate << " MiB estimated, " << peak << " measured");
  CHECK_MESSAGE(estimate < 1.25 * peak, estimate << " MiB estimated, " << peak << " measured");
  // In sync mode rounds wait for their messages: no copies in flight are counted.
  const auto v = run_dlsim({"validate", file, "--set", R"(/time/mode="sync")"});
  REQUIRE_MESSAGE(v.code == 0, v.err);
  CHECK(v.out.find("in flight") == std::string::npos);
  const auto a = run_dlsim({"validate", file});
  CHECK(a.out.find("in flight") != std::string::npos);
}

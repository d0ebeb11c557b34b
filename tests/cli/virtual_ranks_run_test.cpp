// Virtual ranks (dlsim run --virtual-ranks R, docs/partitioned-runs.md slice (b)): the agents run
// as R partitions in windows, as R MPI ranks would. Every result must be R = 1's: fingerprint,
// metrics.csv and summary.json less its timings and `ranks`. What cannot be partitioned yet is
// refused with exit 2, naming the key.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "in_process_cli.hpp"
#include "sim/core/error.hpp"
#include "sim/run/run_scenario.hpp"

using dlsim::testing::run_dlsim;
using dlsim::testing::scratch;
using dlsim::testing::smoke;
using nlohmann::json;

namespace {

std::string text_of(const std::string& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What must not depend on R: the fingerprint (in the summary), metrics.csv, the summary.
struct Results {
  std::string metrics;
  json summary;
};

Results results_of(const std::string& out) {
  json s = dlsim::testing::summary(out);
  s.erase("time");
  s.erase("ranks");
  return {text_of(out + "/metrics.csv"), s};
}

Results run_with_ranks(const std::string& scenario, const std::vector<std::string>& sets,
                       unsigned ranks) {
  const std::string out = scratch("ranks" + std::to_string(ranks));
  std::vector<std::string> args{"run", scenario,          "-o",
                                out,   "--quiet",         "--threads",
                                "1",   "--virtual-ranks", std::to_string(ranks)};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  const auto r = run_dlsim(args);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(dlsim::testing::summary(out)["ranks"] == json{{"count", ranks}, {"virtual", ranks > 1}});
  return results_of(out);
}

// Returns R = 1's summary.json (less `time` and `ranks`).
json check_ranks_agree(const std::string& scenario, const std::vector<std::string>& sets) {
  const Results one = run_with_ranks(scenario, sets, 1);
  for (unsigned ranks : {2u, 3u}) {
    CAPTURE(ranks);
    const Results r = run_with_ranks(scenario, sets, ranks);
    CHECK(r.summary["fingerprint"] == one.summary["fingerprint"]);
    CHECK(r.metrics == one.metrics);
    CHECK(r.summary == one.summary);
  }
  return one.summary;
}

const std::string kQuadratic = smoke("quadratic-detsgrad");  // 16 agents, 4 x 4 torus, 1 ms
const std::string kAsync = R"(/time/mode="async")";

}  // namespace

TEST_CASE("virtual ranks: sync DETSGRAD, D-PSGD and gossip give one process's results") {
  check_ranks_agree(smoke("detsgrad"), {});
  check_ranks_agree(smoke("dpsgd"), {});
  check_ranks_agree(smoke("gossip-push"), {});
}

TEST_CASE("virtual ranks: sync CHOCO with top_k, a dynamic topology and churn with pulls agree") {
  check_ranks_agree(
      kQuadratic,
      {R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"top_k","fraction":0.1}})"});
  check_ranks_agree(kQuadratic, {R"(/topology={"dynamic":{"kind":"random_matching"}})"});
  check_ranks_agree(
      kQuadratic,
      {R"(/churn={"kind":"markov","mean_online":"30ms","mean_offline":"10ms","rejoin":"pull"})"});
}

TEST_CASE("virtual ranks: async DETSGRAD and gossip with latencies, jitter and stragglers agree") {
  // Evaluations every 20 iterations: each must see every agent as one process does at the
  // slowest agent's step, though the other partitions' agents are ahead.
  check_ranks_agree(smoke("detsgrad-async"), {});
  check_ranks_agree(smoke("gossip-async-lossy"), {});  // stragglers, loss, jitter
  check_ranks_agree(kQuadratic, {kAsync, R"(/time/compute/heterogeneity={"min":1,"max":3})",
                                 R"(/network/jitter="0.5ms")"});
}

TEST_CASE("virtual ranks: async with NICs, blocking send buffers, churn and dynamic peers agree") {
  check_ranks_agree(kQuadratic, {kAsync, R"(/network/nic={"uplink":"50Mbps","downlink":"80Mbps"})",
                                 R"(/network/when_full="block")", "/network/send_buffer=1",
                                 R"(/network/bandwidth="5Mbps")"});
  check_ranks_agree(
      kQuadratic,
      {kAsync, R"(/churn={"kind":"markov","mean_online":"30ms","mean_offline":"10ms"})"});
  check_ranks_agree(smoke("gossip-async-lossy"),
                    {R"(/topology={"dynamic":{"kind":"epidemic","s":2}})", "/agents=8"});
}

TEST_CASE("virtual ranks: overloaded links are reported as one process reports them") {
  // 1 Mbit/s links offered 5 times what they carry: all 8 links overloaded alike, and the
  // warning (in summary.json, compared) names the same one. (Here one process and the
  // partitions report link 0 -> 1 first anyway; the recorder's tie-break by time and link is
  // what keeps them equal when a later partition's link reaches the threshold sooner.)
  const json one = check_ranks_agree(
      smoke("dpsgd"),
      {kAsync, R"(/network/bandwidth="1Mbps")", "/run/iterations=1000", "/run/eval_every=500"});
  CHECK(one["warnings"].dump().find("link 0 -> 1") != std::string::npos);
}

TEST_CASE("virtual ranks: what cannot be partitioned yet exits 2 naming its key") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{R"(/network/latency="0ms")"}, "/network/latency: the link from node"},
      {{R"(/network/sharing="maxmin")"}, "/network/sharing"},
      {{R"(/network/failures={"kind":"markov","mtbf":"50ms","mttr":"10ms"})"}, "/network/failures"},
      {{kAsync,
        R"(/churn={"kind":"markov","mean_online":"30ms","mean_offline":"10ms","rejoin":"pull"})"},
       "/churn/rejoin"},
      {{R"(/algorithm={"kind":"allreduce"})", "/trigger=null"},
       "/algorithm/kind: \"allreduce\" is a collective"},
  };
  for (const auto& [sets, message] : refused) {
    CAPTURE(message);
    const std::string out = scratch("refused");
    std::vector<std::string> args{"run", kQuadratic, "-o", out, "--quiet", "--virtual-ranks", "2"};
    for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
    const auto r = run_dlsim(args);
    CHECK(r.code == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK_FALSE(std::filesystem::exists(out + ".tmp"));
  }
  const std::string out = scratch("refused");
  const auto easgd =
      run_dlsim({"run", smoke("easgd"), "-o", out, "--quiet", "--virtual-ranks", "2"});
  CHECK(easgd.code == 2);
  CHECK(easgd.err.find("/algorithm/kind: \"easgd\" has a service node") != std::string::npos);
  const auto one =
      run_dlsim({"run", smoke("centralized"), "-o", out, "--quiet", "--virtual-ranks", "2"});
  CHECK(one.code == 2);
  CHECK(one.err.find("--virtual-ranks 2: between 1 and the 1 agents") != std::string::npos);
}

TEST_CASE(
    "virtual ranks: an async run checkpointed over 2 ranks resumes over 3 as one process ran") {
  using namespace dlsim;
  ScenarioSpec spec = load_scenario(smoke("gossip-async-lossy"), {});
  RunOptions options;
  options.out = scratch("resumed");
  options.checkpoints.every_iterations = 10;
  options.virtual_ranks = 2;
  int calls = 0;
  options.between_iterations = [&calls] {
    if (++calls == 25) throw Cancelled("stopped on purpose");
  };
  std::ostringstream log;
  CHECK_THROWS_AS(run_scenario(spec, options, log), Cancelled);
  options.between_iterations = nullptr;
  options.virtual_ranks = 3;
  run_scenario(spec, options, log);
  CHECK(log.str().find("resuming from") != std::string::npos);
  const Results resumed = results_of(options.out.string());

  options.out = scratch("whole");
  options.checkpoints = {};
  options.virtual_ranks = 1;
  run_scenario(spec, options, log);
  const Results whole = results_of(options.out.string());
  CHECK(resumed.summary["fingerprint"] == whole.summary["fingerprint"]);
  CHECK(resumed.metrics == whole.metrics);
}

TEST_CASE("virtual ranks: a diverged async run names one process's agent and iteration") {
  // A step size 300 times the smoke scenario's: some agent's loss becomes non-finite. The
  // partitions finish the window they are in (so the fingerprint may differ), and the earliest
  // non-finite loss of that window is the one one process stops at.
  const std::vector<std::string> sets{kAsync, "/algorithm/a=30",
                                      R"(/time/compute/heterogeneity={"min":1,"max":3})"};
  std::vector<json> diverged;
  for (unsigned ranks : {1u, 2u, 3u}) {
    const std::string out = scratch("diverged");
    std::vector<std::string> args{
        "run", kQuadratic, "-o", out, "--quiet", "--virtual-ranks", std::to_string(ranks)};
    for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
    const auto r = run_dlsim(args);
    CHECK(r.code == 3);
    diverged.push_back(dlsim::testing::summary(out)["diverged"]);
  }
  CHECK(diverged[0]["agent"] == 2);
  CHECK(diverged[1] == diverged[0]);
  CHECK(diverged[2] == diverged[0]);
}

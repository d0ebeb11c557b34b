// `dlsim run` under `mpirun -np R` (docs/partitioned-runs.md, slice (c)): one simulation over R
// ranks, each running its block of agents, must give one process's fingerprint, metrics.csv and
// summary.json (less its timings and `ranks`), written once, by rank 0. What cannot run over
// ranks yet exits 2 naming its key, with no folder left. Skipped when mpirun cannot start.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mpirun.hpp"
#include "sim/core/build_info.hpp"
#include "sim/core/system_memory.hpp"

using namespace dlsim::testing;
using nlohmann::json;

namespace {

const std::string kDlsim = std::string(DLSIM_BINARY_DIR) + "/dlsim";

std::string smoke(const std::string& name) {
  return std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/" + name + ".json";
}

const std::string kQuadratic = smoke("quadratic-detsgrad");  // 16 agents, 4 x 4 torus, 1 ms
const std::string kAsync = R"(/time/mode="async")";

// `dlsim run SCENARIO -o OUT --quiet --threads 1 --set ...`, quoted for the shell.
std::string run_command(const std::string& scenario, const std::string& out,
                        const std::vector<std::string>& sets) {
  std::string command = fmt::format("{} run {} -o {} --quiet --threads 1", kDlsim, scenario, out);
  for (const std::string& s : sets) command += fmt::format(" --set '{}'", s);
  return command;
}

struct Results {
  std::string metrics;
  json summary;  // less `time` and `ranks`
  json ranks;
};

Results results_of(const fs::path& out) {
  json s = json::parse(read_text(out / "summary.json"));
  const json ranks = s["ranks"];
  s.erase("time");
  s.erase("ranks");
  return {read_text(out / "metrics.csv"), s, ranks};
}

// One process, then 2 and 3 ranks: the same results, written by rank 0 alone. `env`: set for
// the ranks (`VAR=value ...`).
void check_ranks_agree(const std::string& name, const std::string& scenario,
                       const std::vector<std::string>& sets = {}, const std::string& env = "") {
  const fs::path dir = scratch(name);
  if (!mpirun_works(dir)) return;
  const Outcome one = run(run_command(scenario, "one", sets), dir);
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  const Results expected = results_of(dir / "one");
  for (int ranks : {2, 3}) {
    CAPTURE(ranks);
    const std::string out = fmt::format("ranks{}", ranks);
    const std::string ranks_env = env.empty() ? "" : "env " + env + " ";
    const Outcome r = run(mpirun(ranks) + ranks_env + run_command(scenario, out, sets), dir, 300);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Results got = results_of(dir / out);
    CHECK(got.summary["fingerprint"] == expected.summary["fingerprint"]);
    CHECK(got.metrics == expected.metrics);
    CHECK(got.summary == expected.summary);
    CHECK(got.ranks == json{{"count", ranks}, {"virtual", false}});
    // Rank 0 alone reports: one result block on stdout.
    CHECK(r.out.find("fingerprint") != std::string::npos);
    CHECK(r.out.find("fingerprint") == r.out.rfind("fingerprint"));
  }
}

}  // namespace

TEST_CASE("golden fingerprints of the smoke scenarios over 2 and 3 MPI ranks") {
  // Those that cannot run over ranks exit 2: the collectives, EASGD's service node, one agent.
  const std::set<std::string> refused{"allreduce", "local-sgd", "easgd", "centralized"};
  std::ifstream in(std::string(DLSIM_SOURCE_DIR) + "/tests/golden/smoke_fingerprints.json");
  REQUIRE(in);
  const json builds = json::parse(in)["builds"];
  if (!builds.contains(dlsim::build_key()))
    return dlsim::skip_test("no goldens for this build (" + dlsim::build_key() + ")");
  const json& golden = builds[dlsim::build_key()];
  const fs::path dir = scratch("golden");
  if (!mpirun_works(dir)) return;
  size_t checked = 0;
  for (const auto& [name, fingerprint] : golden.items())
    for (int ranks : {2, 3}) {
      CAPTURE(name);
      CAPTURE(ranks);
      const std::string out = fmt::format("{}-{}", name, ranks);
      const Outcome r = run(mpirun(ranks) + run_command(smoke(name), out, {}), dir);
      INFO(r.err);
      if (refused.contains(name)) {
        CHECK(r.exit_code == 2);
        continue;
      }
      REQUIRE(r.exit_code == 0);
      CHECK(json::parse(read_text(dir / out / "summary.json"))["fingerprint"] == fingerprint);
      ++checked;
    }
  CHECK(checked == 2 * (golden.size() - refused.size()));
}

TEST_CASE("dlsim run over 2 and 3 MPI ranks: sync DETSGRAD, D-PSGD and gossip as one process") {
  check_ranks_agree("detsgrad", smoke("detsgrad"));
  check_ranks_agree("dpsgd", smoke("dpsgd"));
  check_ranks_agree("gossip", smoke("gossip-push"));
}

TEST_CASE("dlsim run over MPI ranks: CHOCO with top_k, dynamic topologies and churn agree") {
  check_ranks_agree(
      "choco", kQuadratic,
      {R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"top_k","fraction":0.1}})"});
  check_ranks_agree("matching", kQuadratic,
                    {R"(/topology={"dynamic":{"kind":"random_matching"}})"});
  // Pairs that are not neighbours on the ring: routes of several hops cross ranks midway.
  check_ranks_agree("routed", kQuadratic,
                    {R"(/topology={"dynamic":{"kind":"random_matching"}})",
                     R"(/network/underlay={"kind":"ring"})"});
  check_ranks_agree("churn", kQuadratic,
                    {R"(/churn={"kind":"markov","mean_online":"30ms","mean_offline":"10ms"})"});
}

TEST_CASE("dlsim run over MPI ranks: link failures agree, and routes changed on the way cross") {
  const std::string markov = R"(/network/failures={"kind":"markov","mtbf":"20ms","mttr":"5ms"})";
  check_ranks_agree("failures-sync", kQuadratic, {markov});
  check_ranks_agree("failures-async", kQuadratic, {kAsync, markov});
  // Pairs that are not neighbours on a ring whose links fail: a message keeps the route of its
  // send time, or a detour from where it is when its next link is down, which may not be the
  // route the receiving rank's router gives at its own time (tens of messages here cross ranks
  // on such a route in the sync run, hundreds in the async one).
  check_ranks_agree("failures-routed", kQuadratic,
                    {markov, R"(/topology={"dynamic":{"kind":"random_matching"}})",
                     R"(/network/underlay={"kind":"ring"})"});
  check_ranks_agree("failures-routed-async", smoke("dpsgd"),
                    {kAsync, markov, R"(/topology={"dynamic":{"kind":"epidemic","s":2}})",
                     R"(/network/underlay={"kind":"ring"})", "/agents=8", "/run/iterations=200",
                     "/run/eval_every=100"});
  // A trace: the links between the blocks of 2 and 3 ranks down for a while, one for good.
  const fs::path trace = scratch("failures-trace-file") / "down.csv";
  std::ofstream(trace) << "u,v,down_from,up_again\n7,11,0.002,0.05\n4,8,0.01,inf\n"
                          "5,6,0.003,0.2\n10,11,0,0.1\n";
  check_ranks_agree(
      "failures-trace", kQuadratic,
      {kAsync, fmt::format(R"(/network/failures={{"kind":"trace","file":"{}"}})", trace.string())});
}

TEST_CASE("dlsim run over MPI ranks: windows shipped in rounds of one event each agree") {
  // DLSIM_ROUND_BYTES=1: every window's messages cross one per rank and round, so a snapshot
  // (a DETSGRAD broadcast) or a compressed change (CHOCO) that several messages share is a
  // reference to an earlier round's.
  const std::string one_event = "DLSIM_ROUND_BYTES=1";
  check_ranks_agree("rounds-detsgrad", smoke("detsgrad"), {}, one_event);
  check_ranks_agree("rounds-async", smoke("detsgrad-async"), {}, one_event);
  check_ranks_agree(
      "rounds-choco", kQuadratic,
      {R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"top_k","fraction":0.1}})"},
      one_event);
}

TEST_CASE("dlsim run over MPI ranks: NICs, full send buffers and Byzantine agents agree") {
  check_ranks_agree(
      "nic", kQuadratic,
      {R"(/network/nic={"uplink":"50Mbps","downlink":"80Mbps"})", R"(/network/when_full="block")",
       "/network/send_buffer=1", R"(/network/bandwidth="5Mbps")"});
  check_ranks_agree("byzantine", smoke("dpsgd"),
                    {R"(/byzantine={"count":2,"attack":{"kind":"alie"}})",
                     R"(/algorithm/aggregation={"rule":"median"})"});
}

TEST_CASE("dlsim run over MPI ranks: async DETSGRAD and gossip with latencies and stragglers") {
  // Evaluations every 20 iterations: each must see every agent as one process does at the
  // slowest agent's step, though other ranks' agents are ahead.
  check_ranks_agree("async-detsgrad", smoke("detsgrad-async"));
  check_ranks_agree("async-lossy", smoke("gossip-async-lossy"));  // stragglers, loss, jitter
  check_ranks_agree(
      "async-heterogeneous", kQuadratic,
      {kAsync, R"(/time/compute/heterogeneity={"min":1,"max":3})", R"(/network/jitter="0.5ms")"});
  check_ranks_agree(
      "async-churn", kQuadratic,
      {kAsync, R"(/churn={"kind":"markov","mean_online":"30ms","mean_offline":"10ms"})"});
}

TEST_CASE("dlsim run over MPI ranks: a copy coalesced into a waiting message crosses as sent") {
  // 1 Mbit/s links offered 5 times what they carry: send buffers fill and newer model copies
  // replace waiting ones (when_full "coalesce") after the waiting copy's arrival was scheduled
  // on another rank. The copy that travels must be the newest, as in one process; shipping the
  // first one at once gave another model from iteration 500 on. Routes over a ring underlay
  // cross ranks midway.
  check_ranks_agree(
      "coalesced", smoke("dpsgd"),
      {kAsync, R"(/network/bandwidth="1Mbps")", "/run/iterations=1000", "/run/eval_every=500"});
  check_ranks_agree(
      "coalesced-routed", smoke("dpsgd"),
      {kAsync, R"(/topology={"dynamic":{"kind":"epidemic","s":2}})",
       R"(/network/underlay={"kind":"ring"})", "/agents=8", R"(/network/bandwidth="1Mbps")",
       "/run/iterations=400", "/run/eval_every=200"});
}

TEST_CASE("dlsim run over MPI ranks: a diverged run names one process's agent, exit 3 on all") {
  const fs::path dir = scratch("diverged");
  if (!mpirun_works(dir)) return;
  const std::vector<std::string> sets{"/algorithm/a=30"};
  const Outcome one = run(run_command(kQuadratic, "one", sets), dir);
  REQUIRE(one.exit_code == 3);
  const Outcome three = run(mpirun(3) + run_command(kQuadratic, "three", sets), dir);
  INFO(three.err);
  CHECK(three.exit_code == 3);
  CHECK(results_of(dir / "three").summary == results_of(dir / "one").summary);
  // Async: the ranks finish the window they are in (so the fingerprint may differ), and the
  // earliest non-finite loss of that window is the one one process stops at.
  const std::vector<std::string> async{kAsync, "/algorithm/a=30",
                                       R"(/time/compute/heterogeneity={"min":1,"max":3})"};
  REQUIRE(run(run_command(kQuadratic, "async-one", async), dir).exit_code == 3);
  const Outcome async_three = run(mpirun(3) + run_command(kQuadratic, "async-three", async), dir);
  INFO(async_three.err);
  CHECK(async_three.exit_code == 3);
  const json expected = results_of(dir / "async-one").summary["diverged"];
  CHECK(expected["agent"] == 2);
  CHECK(results_of(dir / "async-three").summary["diverged"] == expected);
}

namespace {

// Every rank killed with SIGKILL once both have written two checkpoints, then the same command
// again: it resumes (each rank its part) and ends with one process's results. Before it, rank
// 1's part is put back a generation, as a crash between the two ranks' renames leaves it: the
// ranks must resume from the iteration both have.
void check_killed_and_resumed(const std::string& name, const std::string& scenario,
                              const std::vector<std::string>& sets, const std::string& every) {
  const fs::path dir = scratch(name);
  if (!mpirun_works(dir)) return;
  REQUIRE(run(run_command(scenario, "one", sets), dir, 300).exit_code == 0);
  const std::string command =
      mpirun(2) + run_command(scenario, "two", sets) + " --checkpoint-every " + every;
  // In the background; killed (all ranks, matched by the output folder) once both ranks kept a
  // previous generation.
  REQUIRE(std::system(
              fmt::format("cd {} && ({} > first.txt 2>&1 &)", dir.string(), command).c_str()) == 0);
  const fs::path staging = dir / "two.tmp";
  const fs::path rank1 = staging / "checkpoint.rank1-of-2.bin";
  const fs::path rank1_previous = staging / "checkpoint.rank1-of-2.bin.previous";
  bool written = false;
  for (int i = 0; i < 6000 && !written; ++i) {  // 60 s
    written =
        fs::exists(staging / "checkpoint.rank0-of-2.bin.previous") && fs::exists(rank1_previous);
    if (!written) usleep(10000);
  }
  REQUIRE(written);
  // [t]: the pattern must not match the shell that runs pkill.
  REQUIRE(std::system("pkill -9 -f -- '-o [t]wo --quiet'; sleep 1") == 0);
  REQUIRE_MESSAGE(!fs::exists(dir / "two"), "the run ended before it was killed");
  fs::rename(rank1_previous, rank1);  // rank 1 a generation behind
  const Outcome resumed = run(command, dir, 300);
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.err.find("dlsim: resuming from") != std::string::npos);
  const Results expected = results_of(dir / "one"), got = results_of(dir / "two");
  CHECK(got.summary["fingerprint"] == expected.summary["fingerprint"]);
  CHECK(got.metrics == expected.metrics);
  CHECK_FALSE(fs::exists(dir / "two" / "checkpoint.rank0-of-2.bin"));
  // Resuming with another number of ranks is refused, naming the folder and the count.
  const fs::path copy = dir / "three.tmp";
  fs::create_directories(copy);
  std::ofstream(copy / "checkpoint.rank0-of-2.bin") << "x";
  const Outcome other = run(mpirun(3) + run_command(scenario, "three", sets), dir);
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("holds the checkpoint of a run over 2 MPI ranks") != std::string::npos);
}

}  // namespace

TEST_CASE("dlsim run over MPI ranks: killed with SIGKILL and run again, sync and async resume") {
  check_killed_and_resumed("killed-sync", smoke("detsgrad"),
                           {"/run/iterations=100000", "/run/eval_every=20000"}, "20000");
  check_killed_and_resumed("killed-async", smoke("detsgrad-async"),
                           {"/run/iterations=100000", "/run/eval_every=20000"}, "20000");
  // Each rank's copy of the links' states and its routes, messages on detours among them.
  check_killed_and_resumed("killed-failures", smoke("detsgrad-async"),
                           {"/run/iterations=100000", "/run/eval_every=20000",
                            R"(/network/failures={"kind":"markov","mtbf":"20ms","mttr":"5ms"})"},
                           "20000");
}

TEST_CASE("dlsim run over MPI ranks on one machine: its ranks share its memory") {
  const fs::path dir = scratch("one-machine");
  if (!mpirun_works(dir)) return;
  const std::optional<uint64_t> available = dlsim::available_memory_bytes();
  if (!available) return dlsim::skip_test("this machine's available memory cannot be read");
  // 1,000 D-PSGD agents of D parameters on a ring hold about 6 vectors each (x, g, the target,
  // D-PSGD's 3): a rank's share over 2 ranks is about 12,000 D bytes. D sized so that it is 0.7
  // of the memory available: one rank alone would have it, two on this machine cannot.
  const uint64_t dim = *available * 7 / 10 / 12000;
  const Outcome r =
      run(mpirun(2) + run_command(kQuadratic, "out",
                                  {"/agents=1000", R"(/topology={"kind":"ring"})",
                                   fmt::format("/model/dim={}", dim),
                                   R"(/algorithm={"kind":"dpsgd"})", "/trigger=null"}),
          dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("of memory is available") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out.tmp"));
}

TEST_CASE("dlsim run over MPI ranks: what cannot run over ranks yet exits 2 naming its key") {
  const fs::path dir = scratch("refused");
  if (!mpirun_works(dir)) return;
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{R"(/network/latency="0ms")"}, "/network/latency: the link from node"},
      {{R"(/churn={"kind":"markov","mean_online":"30ms","mean_offline":"10ms","rejoin":"pull"})"},
       "/churn/rejoin: \"pull\" cannot run over MPI ranks yet"},
      {{R"(/byzantine={"count":2,"attack":{"kind":"alie","knowledge":"omniscient"}})",
        R"(/algorithm={"kind":"dpsgd","aggregation":{"rule":"median"}})", "/trigger=null"},
       "/byzantine/attack/knowledge"},
      {{"/agents=2", R"(/topology={"kind":"complete"})"}, "/agents: 2 agents over 3 MPI ranks"},
      {{R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"top_k","fraction":0.1}})",
        R"(/topology={"dynamic":{"kind":"random_matching"}})"},
       "/topology/dynamic: \"choco\" on a changing graph"},
  };
  for (const auto& [sets, message] : refused) {
    CAPTURE(message);
    const Outcome r = run(mpirun(3) + run_command(kQuadratic, "out", sets), dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
    CHECK_FALSE(fs::exists(dir / "out.tmp"));
  }
  const Outcome both =
      run(mpirun(2) + run_command(kQuadratic, "out", {}) + " --virtual-ranks 2", dir);
  CHECK(both.exit_code == 2);
  CHECK(both.err.find("--virtual-ranks: a run over 2 MPI ranks") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out.tmp"));
}

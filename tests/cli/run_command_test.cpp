#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "../skip.hpp"
#include "in_process_cli.hpp"
#include "sim/core/build_info.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Result = dlsim::testing::CliResult;
using dlsim::testing::run_dlsim;
using dlsim::testing::scratch;
using dlsim::testing::smoke;
using dlsim::testing::summary;

std::string fingerprint_of(const std::string& scenario, std::vector<std::string> extra = {}) {
  const std::string out = scratch("fp");
  std::vector<std::string> args{"run", scenario, "-o", out, "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Result r = run_dlsim(args);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  return summary(out)["fingerprint"];
}

// Runs the smoke scenario `name` with `extra` on 1 thread and on 2; checks that the two
// fingerprints agree and returns the 1-thread run's summary.json.
json summary_where_threads_agree(const std::string& name, const std::vector<std::string>& extra) {
  const std::string out = scratch("threads");
  std::vector<std::string> one{"run", smoke(name), "-o", out, "--quiet", "--threads", "1"};
  one.insert(one.end(), extra.begin(), extra.end());
  const Result r = run_dlsim(one);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  json s = summary(out);
  std::vector<std::string> two = extra;
  two.insert(two.end(), {"--threads", "2"});
  CHECK(s["fingerprint"] == fingerprint_of(smoke(name), two));
  return s;
}

}  // namespace

TEST_CASE("only algorithms with a centre variable report one") {
  const std::string out = scratch("no-center");
  const Result r = run_dlsim({"run", smoke("detsgrad"), "-o", out, "--quiet"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK_FALSE(summary(out)["final"].contains("accuracy_center"));
  std::ifstream csv(out + "/metrics.csv");
  const std::string text((std::istreambuf_iterator<char>(csv)), std::istreambuf_iterator<char>());
  CHECK(text.find(",center,") == std::string::npos);
}

TEST_CASE("dlsim run writes the resolved scenario, metrics.csv and summary.json") {
  const std::string out = scratch("detsgrad");
  const Result r = run_dlsim({"run", smoke("detsgrad"), "-o", out, "--quiet"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.empty());
  CHECK(r.out.find("results      " + out) != std::string::npos);
  const json s = summary(out);
  CHECK(s["status"] == "ok");
  CHECK(s["iterations"] == 60);
  CHECK(s["comm"]["events_per_agent"].size() == 4);
  // by_label with one label each: agent i holds only class i.
  REQUIRE(s["shards"]["class_counts"].size() == 4);
  for (size_t i = 0; i < 4; ++i)
    for (size_t c = 0; c < 4; ++c)
      CHECK((s["shards"]["class_counts"][i][c].get<int>() > 0) == (i == c));
  CHECK(s["final"]["accuracy_mean"].get<double>() > 0.5);
  std::ifstream csv(out + "/metrics.csv");
  std::string header, line;
  std::getline(csv, header);
  CHECK(header.rfind("iteration,time_s,agent,test_loss,test_accuracy", 0) == 0);
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  CHECK(rows == 4 * 5);  // points at iterations 0, 20, 40, 60, each 4 agents + avg
  CHECK_FALSE(fs::exists(out + ".tmp"));
}

TEST_CASE("a run shorter than eval_every evaluates at 0 and at the end, and warns once") {
  const std::string out = scratch("short");
  // The smoke scenario evaluates every 20 iterations; 15 iterations end before the first.
  const Result r =
      run_dlsim({"run", smoke("detsgrad"), "-o", out, "--quiet", "--set", "/run/iterations=15"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.err.find("/run/eval_every: 20 exceeds the run's 15 iterations") != std::string::npos);
  CHECK(r.err.find("warning") == r.err.rfind("warning"));  // once
  std::ifstream csv(out + "/metrics.csv");
  std::string line;
  std::getline(csv, line);
  std::vector<std::string> iterations;
  while (std::getline(csv, line)) iterations.push_back(line.substr(0, line.find(',')));
  REQUIRE(iterations.size() == 2 * 5);  // two points, each 4 agents + avg
  CHECK(iterations.front() == "0");
  CHECK(iterations.back() == "15");
  CHECK(summary(out)["warnings"].size() == 1);
}

TEST_CASE("an output folder that cannot be created exits 5, naming the path and the reason") {
  // procfs refuses new folders even to root, as a read-only or full disk refuses writes.
  const Result r = run_dlsim({"run", smoke("detsgrad"), "-o", "/proc/dlsim-test-out", "--quiet"});
  CHECK(r.code == 5);
  CHECK(r.err.starts_with("dlsim: /proc/dlsim-test-out.tmp: cannot create the folder: "));
  CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
  CHECK_FALSE(fs::exists("/proc/dlsim-test-out.tmp"));
}

TEST_CASE("a resolved scenario re-runs to the same fingerprint") {
  const std::string out = scratch("first");
  REQUIRE(run_dlsim({"run", smoke("gossip-pull"), "-o", out, "--quiet"}).code == 0);
  CHECK(fingerprint_of(out + "/scenario.json") == summary(out)["fingerprint"]);
}

TEST_CASE("threads 1 and 2 give identical fingerprints in both time modes") {
  for (const char* name : {"elastic-gossip", "detsgrad-async", "gossip-async-lossy"}) {
    CAPTURE(name);
    CHECK(fingerprint_of(smoke(name), {"--threads", "1"}) ==
          fingerprint_of(smoke(name), {"--threads", "2"}));
  }
}

TEST_CASE("compressed runs: threads 1 and 2 give identical fingerprints, sizes add up") {
  // SPARQ (sync and async over lossy links: holders' own copies), CHOCO, and naive compression
  // with random draws on D-PSGD, Gossiping SGD and Elastic Gossip.
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"detsgrad", {"--set", R"(/algorithm/compression=[{"kind":"top_k","fraction":0.1},{"kind":"qsgd","levels":4}])"}},
      {"detsgrad-async", {"--set", R"(/algorithm/compression={"kind":"random_k","k":20})",
                          "--set", "/network/loss=0.2"}},
      {"dpsgd", {"--set", R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"sign"}})",
                 "--set", R"(/trigger={"kind":"always"})"}},
      {"dpsgd", {"--set", R"(/algorithm/compression={"kind":"qsgd","levels":2})"}},
      {"gossip-async-lossy", {"--set", R"(/algorithm/compression={"kind":"random_k","fraction":0.3,"scale":true})"}},
      {"elastic-gossip", {"--set", R"(/algorithm/compression={"kind":"bf16"})"}}};
  for (const auto& [name, extra] : runs) {
    CAPTURE(name);
    CAPTURE(extra[1]);
    const json s = summary_where_threads_agree(name, extra);
    CHECK(s["fingerprint"] != fingerprint_of(smoke(name)));  // the compression changed the run
    const json& comm = s["comm"];
    CHECK(comm["bytes_uncompressed"].get<uint64_t>() > comm["bytes"].get<uint64_t>());
    CHECK(comm["compression_ratio"].get<double>() ==
          doctest::Approx(comm["bytes_uncompressed"].get<double>() / comm["bytes"].get<double>()));
  }
}

TEST_CASE("per-tensor triggers: threads 1 and 2 give identical fingerprints") {
  // EventGraD (sync, and async over lossy links: holders' own copies), DETSGRAD per tensor with
  // a threshold and with EventGraD's adaptive rule.
  const std::string eventgrad = R"(/algorithm={"kind":"eventgrad"})";
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"dpsgd", {"--set", eventgrad, "--set", R"(/trigger={"kind":"adaptive","horizon":0.9,"warmup":5})"}},
      {"dpsgd", {"--set", eventgrad, "--set", R"(/trigger={"kind":"threshold","v0":0.02})",
                 "--set", "/time/mode=\"async\"", "--set", "/network/loss=0.2"}},
      {"detsgrad", {"--set", R"(/trigger={"kind":"threshold","v0":0.05,"granularity":"layer"})"}},
      {"detsgrad-async", {"--set", R"(/trigger={"kind":"adaptive","horizon":0.95})",
                          "--set", "/network/loss=0.2"}}};
  for (const auto& [name, extra] : runs) {
    CAPTURE(name);
    CAPTURE(extra[3]);
    std::vector<std::string> two = extra;
    two.insert(two.end(), {"--threads", "2"});
    std::vector<std::string> one = extra;
    one.insert(one.end(), {"--threads", "1"});
    const std::string a = fingerprint_of(smoke(name), one);
    CHECK(a == fingerprint_of(smoke(name), two));
    CHECK(a != fingerprint_of(smoke(name)));  // the trigger changed the run
  }
}

TEST_CASE("dynamic topologies: threads 1 and 2 give identical fingerprints") {
  // Every kind, over lossy links (a lost copy counts as the agent's own x).
  for (const char* dynamic :
       {R"({"kind":"one_peer_exponential"})", R"({"kind":"epidemic","s":2})",
        R"({"kind":"random_matching","over":{"kind":"ring"}})",
        R"({"kind":"sequence","at":["0","30ms"],"topologies":[{"kind":"ring"},{"kind":"star"}]})"}) {
    CAPTURE(dynamic);
    const std::vector<std::string> extra{"--set", std::string(R"(/topology={"dynamic":)") + dynamic + "}",
                                         "--set", "/network/loss=0.2"};
    std::vector<std::string> one = extra, two = extra;
    one.insert(one.end(), {"--threads", "1"});
    two.insert(two.end(), {"--threads", "2"});
    const std::string a = fingerprint_of(smoke("dpsgd"), one);
    CHECK(a == fingerprint_of(smoke("dpsgd"), two));
    CHECK(a != fingerprint_of(smoke("dpsgd")));
  }
}

TEST_CASE("adapt-then-combine: threads 1 and 2 give identical fingerprints in both time modes") {
  // D-PSGD mixing after the local step, sync and async, over a static ring and epidemic s = 2.
  const std::string atc = R"(/algorithm/order="adapt_then_combine")";
  for (const char* mode : {R"(/time/mode="sync")", R"(/time/mode="async")"})
    for (const char* topology : {R"(/topology={"kind":"ring"})",
                                 R"(/topology={"dynamic":{"kind":"epidemic","s":2}})"}) {
      CAPTURE(mode);
      CAPTURE(topology);
      const std::vector<std::string> extra{"--set", atc, "--set", mode, "--set", topology};
      std::vector<std::string> one = extra, two = extra;
      one.insert(one.end(), {"--threads", "1"});
      two.insert(two.end(), {"--threads", "2"});
      const std::string a = fingerprint_of(smoke("dpsgd"), one);
      CHECK(a == fingerprint_of(smoke("dpsgd"), two));
      std::vector<std::string> combine_first = extra;
      combine_first[1] = R"(/algorithm/order="combine_then_adapt")";
      CHECK(a != fingerprint_of(smoke("dpsgd"), combine_first));  // the order changed the run
    }
}

TEST_CASE("the implicit complete underlay gives the fingerprint of a materialised complete graph") {
  // An override that repeats the default latency makes the complete underlay materialised
  // (sim/scenario/underlay.cpp) without changing any link.
  const std::string materialised =
      R"(/network/underlay={"kind":"complete","overrides":[{"u":0,"v":1,"latency":"1ms"}]})";
  for (const char* name : {"dpsgd", "detsgrad"}) {
    for (const char* dynamic :
         {R"({"kind":"epidemic","s":2})", R"({"kind":"one_peer_exponential"})"}) {
      CAPTURE(name);
      CAPTURE(dynamic);
      const std::string topology = std::string(R"(/topology={"dynamic":)") + dynamic + "}";
      CHECK(fingerprint_of(smoke(name), {"--set", topology}) ==
            fingerprint_of(smoke(name), {"--set", topology, "--set", materialised}));
    }
  }
}

TEST_CASE("dynamic DETSGRAD: threads 1 and 2 give identical fingerprints, and forced sends are "
          "messages without events") {
  // A sequence alternating ring and star every 3 iterations over lossy links: new edges get
  // forced sends, copies leave with their edges.
  const std::vector<std::string> extra{
      "--set",
      R"(/topology={"dynamic":{"kind":"sequence","every":3,"topologies":[{"kind":"ring"},{"kind":"star"}]}})",
      "--set", "/network/loss=0.2"};
  std::vector<std::string> two = extra;
  two.insert(two.end(), {"--threads", "2"});
  const std::string out = scratch("dynamic-detsgrad");
  std::vector<std::string> one{"run", smoke("detsgrad"), "-o", out, "--quiet", "--threads", "1"};
  one.insert(one.end(), extra.begin(), extra.end());
  const Result r = run_dlsim(one);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const json s = summary(out);
  CHECK(s["fingerprint"].get<std::string>() == fingerprint_of(smoke("detsgrad"), two));
  CHECK(s["fingerprint"].get<std::string>() != fingerprint_of(smoke("detsgrad")));
  // v0 = 1e30: round 0's 4 events on the ring (8 messages), then forced sends only: the star's
  // new edge 0-2 at k = 3, 9, ..., 57 (10 x 2) and the ring's 1-2 and 2-3 at k = 6, ..., 54
  // (9 x 4): 64 messages, 4 events.
  const std::string quiet = scratch("dynamic-detsgrad-forced");
  const Result f = run_dlsim({"run", smoke("detsgrad"), "-o", quiet, "--quiet", "--set", extra[1],
                              "--set", "/trigger/v0=1e30"});
  REQUIRE_MESSAGE(f.code == 0, f.err);
  const json forced = summary(quiet);
  CHECK(forced["comm"]["events"] == 4);
  CHECK(forced["comm"]["messages"] == 64);
}

TEST_CASE("dynamic gossip and elastic gossip: threads 1 and 2 give identical fingerprints") {
  for (const char* name : {"gossip-pull", "gossip-push", "elastic-gossip"}) {
    CAPTURE(name);
    const std::vector<std::string> extra{"--set", R"(/topology={"dynamic":{"kind":"epidemic","s":2}})",
                                         "--set", "/network/loss=0.1"};
    std::vector<std::string> one = extra, two = extra;
    one.insert(one.end(), {"--threads", "1"});
    two.insert(two.end(), {"--threads", "2"});
    const std::string a = fingerprint_of(smoke(name), one);
    CHECK(a == fingerprint_of(smoke(name), two));
    CHECK(a != fingerprint_of(smoke(name)));
  }
}

TEST_CASE("dynamic CHOCO: threads 1 and 2 give identical fingerprints") {
  for (const char* dynamic : {R"({"kind":"epidemic","s":2})",
                              R"({"kind":"sequence","every":3,"topologies":[{"kind":"ring"},{"kind":"star"}]})"}) {
    CAPTURE(dynamic);
    const std::vector<std::string> extra{
        "--set", std::string(R"(/topology={"dynamic":)") + dynamic + "}", "--set",
        R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"top_k","fraction":0.1}})",
        "--set", R"(/trigger={"kind":"always"})", "--set", "/network/loss=0.1"};
    std::vector<std::string> one = extra, two = extra;
    one.insert(one.end(), {"--threads", "1"});
    two.insert(two.end(), {"--threads", "2"});
    const std::string a = fingerprint_of(smoke("dpsgd"), one);
    CHECK(a == fingerprint_of(smoke("dpsgd"), two));
  }
}

TEST_CASE("a sequence of two identical graphs switching every iteration gives the static run's "
          "fingerprint (DETSGRAD, gossip, Elastic Gossip, CHOCO)") {
  const auto sequence_of = [](const char* kind) {
    return fmt::format(
        R"(/topology={{"dynamic":{{"kind":"sequence","every":1,"topologies":[{{"kind":"{0}"}},{{"kind":"{0}"}}]}}}})",
        kind);
  };
  for (const char* name : {"detsgrad", "gossip-pull", "gossip-push"}) {
    CAPTURE(name);
    CHECK(fingerprint_of(smoke(name)) ==
          fingerprint_of(smoke(name), {"--set", sequence_of("ring")}));
  }
  CHECK(fingerprint_of(smoke("elastic-gossip")) ==
        fingerprint_of(smoke("elastic-gossip"), {"--set", sequence_of("complete")}));
  const std::vector<std::string> choco{
      "--set", R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"top_k","fraction":0.1}})",
      "--set", R"(/trigger={"kind":"always"})"};
  std::vector<std::string> switching = choco;
  switching.insert(switching.end(), {"--set", sequence_of("ring")});
  CHECK(fingerprint_of(smoke("dpsgd"), choco) == fingerprint_of(smoke("dpsgd"), switching));
}

TEST_CASE("churn: threads 1 and 2 give identical fingerprints, drops are counted by reason") {
  for (const char* name : {"dpsgd", "detsgrad"})
    for (const char* rejoin : {"stale", "pull"}) {
      CAPTURE(name);
      CAPTURE(rejoin);
      const std::vector<std::string> extra{
          "--set", fmt::format(R"(/churn={{"kind":"markov","mean_online":"20ms","mean_offline":"10ms","rejoin":"{}"}})", rejoin),
          "--set", "/network/loss=0.1"};
      const json s = summary_where_threads_agree(name, extra);
      const json& drops = s["comm"]["dropped_by_reason"];
      CHECK(drops["offline"].get<uint64_t>() > 0);
      CHECK(drops["loss"].get<uint64_t>() > 0);
      CHECK(drops["loss"].get<uint64_t>() + drops["offline"].get<uint64_t>() ==
            s["comm"]["messages_dropped"].get<uint64_t>());
      // Savings are against the steps agents took: D-PSGD fires at every one of them.
      if (std::string(name) == "dpsgd") CHECK(s["comm"]["savings"].get<double>() == 0.0);
    }
}

TEST_CASE("churn in async mode and with gossip: threads agree, offline agents drop and sit out") {
  // Async: each agent's own iterations decide whether it is online (and, pulling, whether its
  // model came); sync and async gossip too.
  for (const std::string name : {"detsgrad-async", "gossip-async-lossy", "gossip-push",
                                 "elastic-gossip", "dpsgd", "dpsgd-pull"}) {
    CAPTURE(name);
    std::vector<std::string> mode;
    if (name.starts_with("dpsgd")) mode = {"--set", R"(/time/mode="async")"};
    const std::string rejoin = name == "dpsgd-pull" ? "pull" : "stale";
    std::vector<std::string> extra = mode;
    extra.insert(extra.end(), {"--set", fmt::format(R"(/churn={{"kind":"markov","mean_online":"20ms","mean_offline":"10ms","rejoin":"{}"}})", rejoin)});
    const std::string scenario = name == "dpsgd-pull" ? "dpsgd" : name;
    const json s = summary_where_threads_agree(scenario, extra);
    CHECK(s["fingerprint"] != fingerprint_of(smoke(scenario), mode));
    const json& drops = s["comm"]["dropped_by_reason"];
    CHECK(drops["offline"].get<uint64_t>() > 0);
    // Iterations an agent sat out are not decisions: D-PSGD fires at every step it took.
    if (scenario == "dpsgd") CHECK(s["comm"]["savings"].get<double>() == 0.0);
  }
}

TEST_CASE("link failures: threads 1 and 2 give identical fingerprints, drops are counted by reason") {
  // Sync and async, links failing every ~1 ms for ~1 ms (rerouted around, or dropped).
  for (const std::string name : {"detsgrad", "detsgrad-async", "gossip-async-lossy"}) {
    CAPTURE(name);
    const std::vector<std::string> extra{
        "--set", R"(/network/failures={"kind":"markov","mtbf":"1ms","mttr":"1ms"})"};
    const json s = summary_where_threads_agree(name, extra);
    CHECK(s["fingerprint"] != fingerprint_of(smoke(name)));
    const json& drops = s["comm"]["dropped_by_reason"];
    CHECK(drops["link_down"].get<uint64_t>() > 0);
    CHECK(drops["loss"].get<uint64_t>() + drops["offline"].get<uint64_t>() +
              drops["link_down"].get<uint64_t>() ==
          s["comm"]["messages_dropped"].get<uint64_t>());
  }
}

TEST_CASE("link failures with coalescing send buffers: DETSGRAD async runs, as threads 1 and 2") {
  // DETSGRAD async with a send buffer (64, coalesce): copies wait behind messages whose links
  // fail, and newer copies replace them, some of them replacing a copy its down link had lost at
  // once. Swarm::send read the content of that lost copy's slot, which did not exist: a crash at
  // 7 ms. (That a newer copy is lost with it: tests/network/link_failures_test.cpp.)
  const std::vector<std::string> extra{
      "--set", "/run/iterations=400", "--set",
      R"(/network/failures={"kind":"markov","mtbf":"20ms","mttr":"5ms"})"};
  const json s = summary_where_threads_agree("detsgrad-async", extra);
  CHECK(s["comm"]["dropped_by_reason"]["link_down"].get<uint64_t>() > 0);
  CHECK(s["comm"]["send_buffers"]["superseded"].get<uint64_t>() > 0);
}

TEST_CASE("link failures under maxmin sharing: threads 1 and 2 give identical fingerprints") {
  // As above with every message one flow over its route: failures cut flows as they happen.
  for (const std::string name : {"detsgrad", "detsgrad-async", "gossip-async-lossy"}) {
    CAPTURE(name);
    const std::vector<std::string> failures{
        "--set", R"(/network/failures={"kind":"markov","mtbf":"1ms","mttr":"1ms"})"};
    std::vector<std::string> extra = failures;
    extra.insert(extra.end(), {"--set", "/network/sharing=\"maxmin\""});
    const json s = summary_where_threads_agree(name, extra);
    CHECK(s["fingerprint"] != fingerprint_of(smoke(name), failures));
    const json& drops = s["comm"]["dropped_by_reason"];
    CHECK(drops["link_down"].get<uint64_t>() > 0);
    CHECK(drops["loss"].get<uint64_t>() + drops["offline"].get<uint64_t>() +
              drops["link_down"].get<uint64_t>() ==
          s["comm"]["messages_dropped"].get<uint64_t>());
  }
}

TEST_CASE("send buffers: every when_full mode does its part, and threads 1 and 2 agree") {
  // DETSGRAD async on a ring of 4 over 1 Mbit/s links: a 1,360-byte model takes 10.9 ms on the
  // wire, a step about 33 us: the agents offer far more than the links carry. (The smoke
  // scenario sets a buffer of 64, which keeps its golden fingerprint: buffers of 2 here.)
  for (const std::string mode : {"coalesce", "drop", "block"}) {
    CAPTURE(mode);
    const std::vector<std::string> set{"--set", "/network/bandwidth=\"1Mbps\"",
                                       "--set", "/network/send_buffer=2",
                                       "--set", "/network/when_full=\"" + mode + "\""};
    const json s = summary_where_threads_agree("detsgrad-async", set);
    const json& comm = s["comm"];
    const json& b = comm["send_buffers"];
    const uint64_t sent = comm["messages"], superseded = b["superseded"], dropped = b["dropped"];
    CHECK(sent + superseded + dropped == 2 * comm["events"].get<uint64_t>());  // 2 neighbours
    // Each agent has 2 buffers of 2 copies each; block lets each take one more, then holds its
    // sender. The peak is one agent's.
    const uint64_t per_buffer = mode == "block" ? 3 : 2;
    CHECK(b["peak_queued_bytes"].get<uint64_t>() <= 2 * per_buffer * 1360);
    CHECK(b["peak_queued_bytes"].get<uint64_t>() >= 2 * 1360);
    CHECK(b["blocked_s_per_agent"].size() == 4);
    if (mode == "coalesce") CHECK(superseded > 0);
    if (mode == "coalesce") CHECK(dropped == 0);
    if (mode == "drop") CHECK(dropped > 0);
    if (mode == "drop") CHECK(superseded == 0);
    if (mode == "block") CHECK(superseded + dropped == 0);
    if (mode == "block") CHECK(b["blocked_s"].get<double>() > 0);
    if (mode != "block") CHECK(b["blocked_s"].get<double>() == 0);
  }
}

TEST_CASE("bad send buffer keys exit 2 with one line naming the pointer") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/network/when_full=\"later\"",
       "/network/when_full: expected one of \"coalesce\", \"block\", \"drop\", got \"later\""},
      {"/network/send_buffer=0", "/network/send_buffer: expected an integer in [1, "},
      {"/network/send_buffer=-3", "/network/send_buffer: expected an integer in [1, "},
      {"/network/send_buffer=1.5", "/network/send_buffer: expected an integer, got 1.5"},
      {"/network/send_buffer=true", "/network/send_buffer: expected a number of messages"},
      {"/network/send_buffer=\"0B\"", "/network/send_buffer: expected a size of at least 1 byte"},
      {"/network/send_buffer=\"2 messages\"", "/network/send_buffer: "}};
  for (const auto& [set, message] : cases) {
    CAPTURE(set);
    const std::string out = scratch("bad-buffer");
    const Result r = run_dlsim({"run", smoke("detsgrad-async"), "-o", out, "--set", set});
    CHECK(r.code == 2);
    CHECK(r.err.rfind("dlsim: " + smoke("detsgrad-async") + ": " + message, 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(fs::exists(out + ".tmp"));
  }
}

TEST_CASE("dynamic topologies: refused combinations exit 2 with one line naming the pointer") {
  const std::string epidemic = R"(/topology={"dynamic":{"kind":"epidemic","s":2}})";
  const std::vector<std::tuple<std::string, std::vector<std::string>, std::string>> cases{
      {"detsgrad", {"--set", R"(/algorithm/compression={"kind":"top_k","k":3})"},
       "/algorithm/compression: DETSGRAD on a dynamic topology sends whole models"},
      {"detsgrad", {"--set", "/algorithm/local_steps=2"}, "/algorithm/local_steps: "},
      {"detsgrad", {"--set", R"(/trigger/granularity="layer")"}, "/trigger: "},
      {"detsgrad-async", {}, "/topology/dynamic: \"detsgrad\" on a dynamic topology runs in sync "
                             "mode only"},
      {"gossip-async-lossy",
       {"--set", R"(/topology={"dynamic":{"kind":"sequence","every":5,"topologies":[{"kind":"ring"}]}})"},
       "/topology/dynamic: \"sequence\" runs in sync mode only"},
      {"easgd", {}, "/topology/dynamic: a dynamic topology works with"},
      {"allreduce", {}, "/topology/dynamic: a dynamic topology works with"},
      {"dpsgd",
       {"--set", R"(/algorithm={"kind":"choco","gamma":0.2,"local_steps":2})", "--set",
        R"(/trigger={"kind":"always"})"},
       "/algorithm/local_steps: CHOCO on a dynamic topology"}};
  for (const auto& [name, extra, message] : cases) {
    CAPTURE(name);
    CAPTURE(message);
    std::vector<std::string> args{"validate", smoke(name), "--set", epidemic};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_dlsim(args);
    CHECK(r.code == 2);
    CHECK(r.err.rfind("dlsim: " + smoke(name) + ": " + message, 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("maxmin sharing: threads 1 and 2 give identical fingerprints, fifo's differ") {
  // 1 Mbit/s links and 5 ms steps: messages (11 ms each) overlap on the links, so max-min
  // sharing changes the trajectory; gossip's requests and replies block their senders.
  for (const std::string name : {"detsgrad-async", "gossip-async-lossy", "dpsgd"}) {
    CAPTURE(name);
    const std::vector<std::string> slow{"--set", "/network/bandwidth=\"1Mbps\"", "--set",
                                        R"(/time/compute={"step":"5ms"})"};
    std::vector<std::string> one = slow, two = slow;
    one.insert(one.end(), {"--set", "/network/sharing=\"maxmin\"", "--threads", "1"});
    two.insert(two.end(), {"--set", "/network/sharing=\"maxmin\"", "--threads", "2"});
    const std::string a = fingerprint_of(smoke(name), one);
    CHECK(a == fingerprint_of(smoke(name), two));
    CHECK(a != fingerprint_of(smoke(name), slow));
  }
}

TEST_CASE("maxmin sharing: a sync ring with one message per link at a time keeps fifo's results") {
  // D-PSGD on a ring without NICs: each directed link carries one copy per round, alone, so
  // every delivery time (and with it every number) is fifo's. Only the events differ (kFlowEnd).
  std::string csv[2];
  double simulated_s[2];
  for (int maxmin = 0; maxmin < 2; ++maxmin) {
    const std::string out = scratch(maxmin ? "ring-maxmin" : "ring-fifo");
    const std::string set = maxmin ? "/network/sharing=\"maxmin\"" : "/network/sharing=\"fifo\"";
    const Result r = run_dlsim({"run", smoke("dpsgd"), "-o", out, "--quiet", "--set", set});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    std::ifstream in(out + "/metrics.csv");
    csv[maxmin] = std::string(std::istreambuf_iterator<char>(in), {});
    simulated_s[maxmin] = summary(out)["time"]["simulated_s"].get<double>();
  }
  CHECK(csv[0].size() > 100);
  CHECK(csv[0] == csv[1]);
  CHECK(simulated_s[0] == simulated_s[1]);
}

TEST_CASE("a bad network.sharing exits 2 with one line naming the pointer") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/network/sharing=\"fair\"",
       "/network/sharing: expected one of \"fifo\", \"maxmin\", got \"fair\""},
      {"/network/sharing=3", "/network/sharing: expected a string, got 3"}};
  for (const auto& [set, message] : cases) {
    CAPTURE(set);
    const std::string out = scratch("bad-sharing");
    const Result r = run_dlsim({"run", smoke("dpsgd"), "-o", out, "--set", set});
    CHECK(r.code == 2);
    CHECK(r.err.rfind("dlsim: " + smoke("dpsgd") + ": " + message, 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(out));
  }
}

TEST_CASE("the same seed gives the same fingerprint and another seed a different one") {
  const std::string a = fingerprint_of(smoke("gossip-push"));
  CHECK(fingerprint_of(smoke("gossip-push")) == a);
  CHECK(fingerprint_of(smoke("gossip-push"), {"--set", "/seed=2"}) != a);
}

TEST_CASE("a bad scenario exits 2 with one line naming the pointer, and leaves no folder") {
  const std::string out = scratch("bad");
  const Result r =
      run_dlsim({"run", smoke("dpsgd"), "-o", out, "--set", "/network/bandwidth=10 MB"});
  CHECK(r.code == 2);
  CHECK(r.err == "dlsim: " + smoke("dpsgd") +
                     ": /network/bandwidth: expected a rate such as \"10Mbps\", got \"10 MB\"\n");
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(out + ".tmp"));
  const Result missing_data =
      run_dlsim({"run", smoke("dpsgd"), "-o", out, "--quiet", "--set", "/data/dataset=\"mnist\"",
                 "--set", "/data/synthetic=null", "--data-dir", out + "-nowhere"});
  CHECK(missing_data.code == 2);
  CHECK(missing_data.err.find("tools/setup.sh") != std::string::npos);
  CHECK_FALSE(fs::exists(out + ".tmp"));
}

TEST_CASE("dlsim run as one of several tasks without MPI's environment exits before writing") {
  // srun -n 2 without --mpi=pmix: two copies would each run the whole simulation. (Under mpirun
  // the tasks run one simulation together: tests/distributed/partitioned_run_test.cpp.)
  const std::string out = scratch("mpi-tasks");
  REQUIRE(setenv("SLURM_STEP_NUM_TASKS", "2", 1) == 0);
  const Result r = run_dlsim({"run", smoke("dpsgd"), "-o", out, "--quiet"});
  unsetenv("SLURM_STEP_NUM_TASKS");
  CHECK(r.code == 5);
  // (A build without MPI says so instead of naming the launcher.)
  CHECK(r.err.starts_with("dlsim: started as one of 2 tasks"));
  CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(out + ".tmp"));
  // One task (srun -n 1 inside a larger allocation) runs as usual.
  REQUIRE(setenv("OMPI_COMM_WORLD_SIZE", "1", 1) == 0);
  const Result one = run_dlsim({"run", smoke("dpsgd"), "-o", out, "--quiet"});
  unsetenv("OMPI_COMM_WORLD_SIZE");
  CHECK_MESSAGE(one.code == 0, one.err);
}

TEST_CASE("dlsim validate accepts a good scenario and rejects a bad one") {
  CHECK(run_dlsim({"validate", smoke("allreduce")}).code == 0);
  const Result r =
      run_dlsim({"validate", smoke("allreduce"), "--set", "/trigger={\"kind\":\"always\"}"});
  CHECK(r.code == 2);
  CHECK(r.err.find(": /trigger: algorithm \"allreduce\" takes no trigger") != std::string::npos);
}

TEST_CASE(
    "dlsim validate --ranks R estimates the largest rank's share and refuses what R ranks do") {
  const Result one = run_dlsim({"validate", smoke("quadratic-detsgrad")});
  const Result four = run_dlsim({"validate", smoke("quadratic-detsgrad"), "--ranks", "4"});
  REQUIRE_MESSAGE(four.code == 0, four.err);
  CHECK(one.out.find("per rank") == std::string::npos);
  CHECK(four.out.find("per rank over 4 MPI ranks (the largest share: 4 agents)") !=
        std::string::npos);
  CHECK(four.out.find("other ranks' agents sending here") != std::string::npos);
  CHECK(four.out.find("12 place-holders") != std::string::npos);
  const Result centralized = run_dlsim({"validate", smoke("centralized"), "--ranks", "2"});
  CHECK(centralized.code == 2);
  CHECK(centralized.err.find(": /agents: 1 agents over 2 MPI ranks") != std::string::npos);
  const Result easgd = run_dlsim({"validate", smoke("easgd"), "--ranks", "2"});
  CHECK(easgd.code == 2);
  CHECK(easgd.err.find(": /algorithm/kind: \"easgd\" has a service node") != std::string::npos);
  const Result zero = run_dlsim(
      {"validate", smoke("quadratic-detsgrad"), "--ranks", "2", "--set", "/network/latency=0s"});
  CHECK(zero.code == 2);
  CHECK(zero.err.find(": /network/latency: ") != std::string::npos);
}

TEST_CASE("golden fingerprints of the smoke scenarios") {
  std::ifstream in(std::string(DLSIM_SOURCE_DIR) + "/tests/golden/smoke_fingerprints.json");
  REQUIRE(in);
  const json builds = json::parse(in)["builds"];
  if (!builds.contains(dlsim::build_key()))
    return dlsim::skip_test("no goldens for this build (" + dlsim::build_key() + "), only " +
                            builds.dump() + ": tools/update_golden.sh --add records them");
  const json& golden = builds[dlsim::build_key()];
  size_t checked = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke")) {
    const std::string name = entry.path().stem().string();
    CAPTURE(name);
    REQUIRE(golden.contains(name));
    CHECK(fingerprint_of(entry.path().string()) == golden[name]);
    ++checked;
  }
  CHECK(checked == golden.size());
}

TEST_CASE("a diverged run exits 3, names the iteration and agent, and still writes its folder") {
  const std::string dir = scratch("diverged");
  fs::create_directories(dir);
  const std::string scenario = dir + "/div.json";
  // lr 3e38: iteration 0's loss is finite, its update overflows the parameters to infinity.
  std::ofstream(scenario) << R"({"name": "div", "agents": 2, "model": {"kind": "quadratic",
    "dim": 4}, "optimizer": {"kind": "sgd", "lr": 3e38}, "algorithm": {"kind": "none"},
    "run": {"iterations": 1}})";
  const Result last = run_dlsim({"run", scenario, "-o", dir + "/p", "--quiet"});
  CHECK(last.code == 3);
  CHECK(last.err == "dlsim: diverged: agent 0 got non-finite parameters at iteration 0\n");
  CHECK(last.out.find("status       diverged") == 0);
  const json p = summary(dir + "/p");
  CHECK(p["status"] == "diverged");
  CHECK(p["diverged"] == json({{"iteration", 0}, {"agent", 0}, {"in", "parameters"}}));
  // lr 1e30: the update of iteration 0 is finite, iteration 1's loss is not.
  const Result loss = run_dlsim({"run", scenario, "-o", dir + "/l", "--quiet", "--set",
                                 "/optimizer/lr=1e30", "--set", "/run/iterations=5"});
  CHECK(loss.code == 3);
  CHECK(loss.err == "dlsim: diverged: agent 0 had a non-finite loss at iteration 1\n");
  CHECK(summary(dir + "/l")["diverged"] == json({{"iteration", 1}, {"agent", 0}, {"in", "loss"}}));
}

TEST_CASE(
    "EASGD runs in both modes: two messages per exchange, the server's replies counted, "
    "the centre variable scored") {
  for (const char* mode : {"sync", "async"}) {
    CAPTURE(mode);
    const std::string out = scratch(std::string("easgd-") + mode);
    const Result r = run_dlsim(
        {"run", smoke("easgd"), "-o", out, "--quiet", "--set", std::string("/time/mode=") + mode});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const json s = summary(out);
    CHECK(s["algorithm"] == "easgd");
    CHECK(s["comm"]["events"] == 60);  // 4 agents, tau 4, 60 iterations
    CHECK(s["comm"]["messages"] == 120);
    CHECK(s["comm"]["bytes"] == 120 * 4 * s["parameters"].get<uint64_t>());
    CHECK(s["final"]["accuracy_mean"].get<double>() > 0.6);
    CHECK(s["final"]["accuracy_center"].get<double>() > 0.6);
    CHECK(s["final"]["accuracy_center"].get<double>() <= 1.0);
    CHECK(s["final"]["loss_center"].get<double>() > 0.0);
    // The last row of metrics.csv: the centre at iteration 60, with the server's 60 replies.
    std::ifstream csv(out + "/metrics.csv");
    std::string line, last;
    while (std::getline(csv, line)) last = line;
    CHECK(last.rfind("60,", 0) == 0);
    CHECK(last.find(",center,") != std::string::npos);
    const std::string bytes = std::to_string(60 * 4 * s["parameters"].get<uint64_t>());
    CHECK(last.find(",0,60," + bytes + ",") != std::string::npos);
    const std::vector<std::string> set_mode{"--set", std::string("/time/mode=") + mode};
    std::vector<std::string> one = set_mode, two = set_mode;
    one.insert(one.end(), {"--threads", "1"});
    two.insert(two.end(), {"--threads", "2"});
    CHECK(fingerprint_of(smoke("easgd"), one) == fingerprint_of(smoke("easgd"), two));
  }
}

TEST_CASE("a scenario too large for this machine's memory is refused before anything is written") {
  const std::string out = scratch("too-large");
  const std::vector<std::string> too_large{"--set", "/model/hidden=[10000000]"};
  for (std::vector<std::string> args : {std::vector<std::string>{"validate", smoke("detsgrad")},
                                        {"run", smoke("detsgrad"), "-o", out, "--quiet"}}) {
    args.insert(args.end(), too_large.begin(), too_large.end());
    const Result r = run_dlsim(args);
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.err.find("/model/hidden: the run needs an estimated ") != std::string::npos,
                  r.err);
    CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
  }
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(out + ".tmp"));
}

TEST_CASE("the memory estimate is within 25 % of the measured peak, beside it in summary.json") {
#if defined(__SANITIZE_ADDRESS__)
  dlsim::skip_test("AddressSanitizer's shadow memory and quarantine inflate the peak");
  return;
#endif
  // A model large enough that the run's own memory, not the process's, dominates the peak.
  const std::string out = scratch("estimate");
  const Result r = run_dlsim({"run", smoke("dpsgd"), "-o", out, "--quiet", "--set",
                              "/model/hidden=[3000]", "--set", "/run/iterations=20"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const json time = summary(out)["time"];
  const double estimate = time["memory_estimate_mb"].get<double>();
  const double peak = time["peak_rss_mb"].get<double>();
  CHECK_MESSAGE(estimate > 0.75 * peak, estimate << " MiB estimated, " << peak << " measured");
  CHECK_MESSAGE(estimate < 1.25 * peak, estimate << " MiB estimated, " << peak << " measured");
}

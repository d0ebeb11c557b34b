// Byzantine D-PSGD and DETSGRAD runs end to end (scenarios/byzantine/): the same fingerprint on
// 1 and 2 threads, honest-only final scores, Byzantine traffic apart, a DETSGRAD attacker with
// and without its trigger, and refusals that exit 2.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "in_process_cli.hpp"

using namespace dlsim;
using namespace dlsim::testing;
using nlohmann::json;

namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == ',')
      fields.emplace_back();
    else
      fields.back() += c;
  }
  return fields;
}

// The folder run_with(name, ...) wrote, in this process.
std::string scratch_path(const std::string& name) {
  return (std::filesystem::path(DLSIM_BINARY_DIR) / "tests" / "cli_runs" /
          (std::to_string(getpid()) + "-" + name))
      .string();
}

const std::string kScenario =
    std::string(DLSIM_SOURCE_DIR) + "/scenarios/byzantine/dpsgd-ring-alie.json";

const std::string kDetsgradScenario =
    std::string(DLSIM_SOURCE_DIR) + "/scenarios/byzantine/detsgrad-ring-alie.json";

// Runs a Byzantine scenario with `extra` on `threads` threads; returns summary.json.
json run_with(const std::string& name, std::vector<std::string> extra, const char* threads,
              const std::string& scenario = kScenario) {
  const std::string out = scratch(name);
  std::vector<std::string> args{"run", scenario, "-o", out, "--quiet", "--threads", threads};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = run_dlsim(args);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  return summary(out);
}

}  // namespace

TEST_CASE("a Byzantine D-PSGD run gives the same fingerprint on 1 and 2 threads, every attack") {
  for (const char* attack : {R"({"kind":"alie","z":1.0})", R"({"kind":"ipm"})",
                             R"({"kind":"sign_flip"})", R"({"kind":"gaussian","sigma":2})",
                             R"({"kind":"dissensus"})", R"({"kind":"label_flip"})"}) {
    CAPTURE(attack);
    for (const char* knowledge : {R"("received")", R"("omniscient")"}) {
      const std::vector<std::string> set{"--set", std::string("/byzantine/attack=") + attack,
                                         "--set", std::string("/byzantine/knowledge=") + knowledge};
      const json one = run_with("byz1", set, "1");
      CHECK(one["fingerprint"] == run_with("byz2", set, "2")["fingerprint"]);
    }
  }
}

TEST_CASE("a Byzantine run reports honest agents' scores and its attackers' traffic apart") {
  const json clean = run_with("clean", {"--set", "/byzantine=null"}, "1");
  const json attacked =
      run_with("flip", {"--set", R"(/byzantine/attack={"kind":"sign_flip"})"}, "1");
  // One attacker of six on a ring, degree 2: a sixth of the messages, every iteration.
  const json& comm = attacked["comm"];
  REQUIRE(attacked["byzantine"]["agents"].size() == 1);
  CHECK(comm["byzantine_messages"].get<uint64_t>() * 6 == comm["messages"].get<uint64_t>());
  CHECK(comm["byzantine_bytes"].get<uint64_t>() * 6 == comm["bytes"].get<uint64_t>());
  CHECK_FALSE(clean.contains("byzantine"));
  CHECK(clean["fingerprint"] != attacked["fingerprint"]);
  // The final mean is over the five honest agents: that of metrics.csv's last rows without the
  // attacker's.
  const std::string b = std::to_string(attacked["byzantine"]["agents"][0].get<uint32_t>());
  std::ifstream csv(scratch_path("flip") + "/metrics.csv");
  std::string line;
  std::getline(csv, line);
  const std::vector<std::string> header = split(line);
  const auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  double sum = 0;
  int honest = 0;
  while (std::getline(csv, line)) {
    const std::vector<std::string> f = split(line);
    if (f[column("iteration")] != "60" || f[column("agent")] == "avg" || f[column("agent")] == b)
      continue;
    sum += std::stod(f[column("test_accuracy")]);
    ++honest;
  }
  CHECK(honest == 5);
  CHECK(attacked["final"]["accuracy_mean"].get<double>() == doctest::Approx(sum / 5));
}

TEST_CASE("Byzantine senders outside sync D-PSGD exit 2 naming /byzantine") {
  const std::string out = scratch("byz-refused");
  const CliResult r =
      run_dlsim({"run", kScenario, "-o", out, "--quiet", "--set", R"(/time/mode="async")"});
  CHECK(r.code == 2);
  CHECK(r.err.find("/byzantine: Byzantine senders run in sync mode only") != std::string::npos);
}

TEST_CASE("a Byzantine DETSGRAD run gives the same fingerprint on 1 and 2 threads, every attack") {
  for (const char* attack :
       {R"({"kind":"alie","z":1.0})", R"({"kind":"ipm"})", R"({"kind":"sign_flip"})",
        R"({"kind":"gaussian","sigma":2})", R"({"kind":"dissensus"})"}) {
    CAPTURE(attack);
    for (const char* sends : {R"("with_trigger")", R"("every_iteration")"}) {
      const std::vector<std::string> set{"--set", std::string("/byzantine/attack=") + attack,
                                         "--set", std::string("/byzantine/sends=") + sends};
      const json one = run_with("dbyz1", set, "1", kDetsgradScenario);
      CHECK(one["fingerprint"] == run_with("dbyz2", set, "2", kDetsgradScenario)["fingerprint"]);
    }
  }
}

TEST_CASE("a DETSGRAD attacker sends when its trigger fires, or at every iteration") {
  // One attacker of six on a ring (degree 2), 60 iterations.
  const auto messages = [&](const char* sends) {
    const json s = run_with("dsends", {"--set", std::string("/byzantine/sends=") + sends}, "1",
                            kDetsgradScenario);
    return s["comm"]["byzantine_messages"].get<uint64_t>();
  };
  const uint64_t triggered = messages(R"("with_trigger")");
  CHECK(messages(R"("every_iteration")") == 60 * 2);
  CHECK(triggered > 0);
  CHECK(triggered < 60);
  // Without the key, the attacker follows its trigger; the resolved scenario says "sends" only
  // when it was given.
  const json plain = run_with("dsends-default", {}, "1", kDetsgradScenario);
  CHECK(plain["comm"]["byzantine_messages"].get<uint64_t>() == triggered);
  const auto resolved = [](const std::string& name) {
    std::ifstream in(scratch_path(name) + "/scenario.json");
    return json::parse(in)["byzantine"];
  };
  CHECK_FALSE(resolved("dsends-default").contains("sends"));
  CHECK(resolved("dsends") == json::parse(R"({"count":1,"attack":{"kind":"alie","z":1.0},
      "knowledge":"received","sends":"every_iteration"})"));
}

TEST_CASE(
    "DETSGRAD with a robust rule and no attacker still learns, and the rule changes the run") {
  const json mean =
      run_with("drobust-mean",
               {"--set", "/byzantine=null", "--set", R"(/algorithm/aggregation={"rule":"mean"})"},
               "1", kDetsgradScenario);
  for (const char* robust : {R"({"rule":"median"})", R"({"rule":"trimmed_mean","trim":1})",
                             R"({"rule":"clipped_gossip","tau":"adaptive"})"}) {
    CAPTURE(robust);
    const json s = run_with(
        "drobust",
        {"--set", "/byzantine=null", "--set", std::string("/algorithm/aggregation=") + robust}, "1",
        kDetsgradScenario);
    CHECK(s["fingerprint"] != mean["fingerprint"]);
    // 10 classes: chance is 0.1; the mean reaches about 0.85 on this run.
    CHECK(s["final"]["accuracy_mean"].get<double>() > 0.7);
  }
}

TEST_CASE("a DETSGRAD attacker's timing and its trigger's granularity are checked, exit 2") {
  const auto refused = [](const std::string& scenario, std::vector<std::string> extra) {
    std::vector<std::string> args{"run", scenario, "-o", scratch("dbyz-refused"), "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_dlsim(args);
  };
  const CliResult dpsgd = refused(kScenario, {"--set", R"(/byzantine/sends="every_iteration")"});
  CHECK(dpsgd.code == 2);
  CHECK(dpsgd.err.find("/byzantine/sends: \"dpsgd\" sends at every iteration") !=
        std::string::npos);
  const CliResult bad = refused(kDetsgradScenario, {"--set", R"(/byzantine/sends="always")"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("/byzantine/sends") != std::string::npos);
  const CliResult flip =
      refused(kDetsgradScenario, {"--set", R"(/byzantine/attack={"kind":"label_flip"})", "--set",
                                  R"(/byzantine/sends="every_iteration")"});
  CHECK(flip.code == 2);
  CHECK(flip.err.find("/byzantine/sends: label_flip") != std::string::npos);
  const CliResult layers = refused(kDetsgradScenario, {"--set", R"(/trigger/granularity="layer")"});
  CHECK(layers.code == 2);
  CHECK(layers.err.find("/byzantine: Byzantine DETSGRAD senders craft whole models") !=
        std::string::npos);
}

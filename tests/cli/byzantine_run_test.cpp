// Byzantine D-PSGD runs end to end (scenarios/byzantine/): the same fingerprint on 1 and 2
// threads, honest-only final scores, Byzantine traffic apart, and refusals that exit 2.
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

// Runs the Byzantine scenario with `extra` on `threads` threads; returns summary.json.
json run_with(const std::string& name, std::vector<std::string> extra, const char* threads) {
  const std::string out = scratch(name);
  std::vector<std::string> args{"run", kScenario, "-o", out, "--quiet", "--threads", threads};
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

// D-PSGD runs with a robust aggregation rule through `dlsim run` (docs/algorithms.md, "Robust
// aggregation"): clipped gossip that clips nothing is the mean bit for bit, the median and the
// trimmed mean change the run and still learn, 1 and 2 threads agree, bad input exits 2.
#include <doctest/doctest.h>

#include "in_process_cli.hpp"

using nlohmann::json;

namespace {

using Result = dlsim::testing::CliResult;
using dlsim::testing::run_dlsim;
using dlsim::testing::scratch;
using dlsim::testing::smoke;
using dlsim::testing::summary;

std::string rule(const std::string& json_rule) { return "/algorithm/aggregation=" + json_rule; }

json run_summary(std::vector<std::string> extra) {
  const std::string out = scratch("aggregation-run");
  std::vector<std::string> args{"run", smoke("dpsgd"), "-o", out, "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Result r = run_dlsim(args);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  return summary(out);
}

Result refused(const std::string& set, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"run",     smoke("dpsgd"), "-o", scratch("aggregation-refused"),
                                "--quiet", "--set",        set};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_dlsim(args);
}

}  // namespace

TEST_CASE("D-PSGD with clipped gossip and a radius nothing reaches gives the mean's fingerprint") {
  const std::string mean = run_summary({})["fingerprint"];
  CHECK(run_summary({"--set", rule(R"({"rule":"mean"})")})["fingerprint"] == mean);
  CHECK(run_summary({"--set", rule(R"({"rule":"clipped_gossip","tau":1e30})")})["fingerprint"] ==
        mean);
  // In both orders; and a radius that clips changes the run.
  const std::string atc =
      run_summary({"--set", R"(/algorithm/order="adapt_then_combine")"})["fingerprint"];
  CHECK(run_summary({"--set", R"(/algorithm/order="adapt_then_combine")", "--set",
                     rule(R"({"rule":"clipped_gossip","tau":1e30})")})["fingerprint"] == atc);
  CHECK(run_summary({"--set", rule(R"({"rule":"clipped_gossip","tau":1e-4})")})["fingerprint"] !=
        mean);
}

TEST_CASE("D-PSGD with the median or the trimmed mean differs from the mean and still learns") {
  const json mean = run_summary({});
  for (const char* robust : {R"({"rule":"median"})", R"({"rule":"trimmed_mean","trim":1})",
                             R"({"rule":"clipped_gossip","tau":"adaptive"})"}) {
    CAPTURE(robust);
    const json s = run_summary({"--set", rule(robust)});
    CHECK(s["fingerprint"] != mean["fingerprint"]);
    // 4 classes: chance is 0.25; the mean reaches 0.82 on this smoke run, these about as much.
    CHECK(s["final"]["accuracy_mean"].get<double>() > 0.7);
  }
}

TEST_CASE(
    "D-PSGD and EventGraD with a robust rule give the same fingerprint with 1 and 2 threads") {
  const std::vector<std::vector<std::string>> runs = {
      {"--set", rule(R"({"rule":"median"})")},
      {"--set", rule(R"({"rule":"krum","f":0})"), "--set", R"(/time/mode="async")", "--set",
       "/network/loss=0.2"},
      {"--set", rule(R"({"rule":"balance"})"), "--set", R"(/algorithm/order="adapt_then_combine")"},
      {"--set", rule(R"({"rule":"geometric_median"})"), "--set", R"(/time/mode="async")"},
      {"--set", R"(/algorithm={"kind":"eventgrad","aggregation":{"rule":"median"}})", "--set",
       R"(/trigger={"kind":"threshold","v0":0.01,"granularity":"layer"})"}};
  for (const std::vector<std::string>& run : runs) {
    CAPTURE(run[1]);
    std::vector<std::string> one = run, two = run;
    one.insert(one.end(), {"--threads", "1"});
    two.insert(two.end(), {"--threads", "2"});
    CHECK(run_summary(one)["fingerprint"] == run_summary(two)["fingerprint"]);
  }
}

TEST_CASE("bad aggregation input exits 2 with the file and the JSON pointer") {
  const std::string file = smoke("dpsgd");
  const auto names = [&](const Result& r, const std::string& pointer) {
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(file + ": " + pointer + ": ") != std::string::npos);
  };
  names(refused(rule(R"({"rule":"clipped_gossip","tau":-1})")), "/algorithm/aggregation/tau");
  names(refused(rule(R"({"rule":"mode"})")), "/algorithm/aggregation/rule");
  names(refused(rule(R"({"rule":"median","f":1})")), "/algorithm/aggregation/f");
  // The smoke ring of 4: 3 models per neighbourhood.
  names(refused(rule(R"({"rule":"trimmed_mean","trim":2})")), "/algorithm/aggregation");
  names(refused(rule(R"({"rule":"krum","f":1})")), "/algorithm/aggregation");
  names(refused(rule(R"({"rule":"median"})"), {"--set", R"(/algorithm/kind="gossip")"}),
        "/algorithm/aggregation");
  names(refused(rule(R"({"rule":"median"})"),
                {"--set", R"(/topology={"dynamic":{"kind":"epidemic","s":2}})"}),
        "/algorithm/aggregation");
}

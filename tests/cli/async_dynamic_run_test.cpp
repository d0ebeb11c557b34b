// Dynamic topologies in async mode through `dlsim run`: each agent draws its peers in event
// order, so 1 and 2 threads give the same run; what stays refused exits 2 naming the key.
#include <doctest/doctest.h>

#include "in_process_cli.hpp"

using nlohmann::json;

namespace {

using Result = dlsim::testing::CliResult;
using dlsim::testing::run_dlsim;
using dlsim::testing::scratch;
using dlsim::testing::smoke;
using dlsim::testing::summary;

json run_summary(const std::string& name, std::vector<std::string> extra) {
  const std::string out = scratch("async-dynamic-run");
  std::vector<std::string> args{"run", smoke(name), "-o", out, "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Result r = run_dlsim(args);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  return summary(out);
}

std::string topology(const std::string& dynamic) {
  return R"(/topology={"dynamic":)" + dynamic + "}";
}

}  // namespace

TEST_CASE("dynamic topologies in async mode: threads 1 and 2 give identical fingerprints") {
  // Over lossy, jittery links with a straggler, so the agents' clocks drift apart.
  const std::vector<std::string> async{
      "--set", R"(/time/mode="async")", "--set", "/network/loss=0.2", "--set",
      R"(/network/jitter="1ms")", "--set",
      R"(/time/compute/stragglers={"fraction":0.25,"factor":4})"};
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"dpsgd", R"({"kind":"epidemic","s":2})"},
      {"dpsgd", R"({"kind":"one_peer_exponential"})"},
      {"dpsgd", R"({"kind":"random_matching"})"},
      {"dpsgd", R"({"kind":"random_matching","over":{"kind":"ring"}})"},
      {"gossip-async-lossy", R"({"kind":"epidemic","s":2})"},
      {"elastic-gossip", R"({"kind":"one_peer_exponential"})"}};
  const std::string static_run = run_summary("dpsgd", async)["fingerprint"];
  for (const auto& [name, dynamic] : runs) {
    CAPTURE(name);
    CAPTURE(dynamic);
    std::vector<std::string> one = async;
    one.insert(one.end(), {"--set", topology(dynamic), "--threads", "1"});
    std::vector<std::string> two = one;
    two.back() = "2";
    const json s = run_summary(name, one);
    CHECK(s["fingerprint"] == run_summary(name, two)["fingerprint"]);
    CHECK(s["fingerprint"] != static_run);
    CHECK(s["comm"]["messages"].get<uint64_t>() > s["comm"]["messages_dropped"].get<uint64_t>());
  }
}

TEST_CASE("async D-PSGD over epidemic with churn: threads agree, offline agents drop") {
  const std::vector<std::string> one{
      "--set", R"(/time/mode="async")", "--set", topology(R"({"kind":"epidemic","s":2})"),
      "--set", R"(/churn={"kind":"markov","mean_online":"20ms","mean_offline":"10ms","rejoin":"pull"})",
      "--threads", "1"};
  std::vector<std::string> two = one;
  two.back() = "2";
  const json s = run_summary("dpsgd", one);
  CHECK(s["fingerprint"] == run_summary("dpsgd", two)["fingerprint"]);
  CHECK(s["comm"]["dropped_by_reason"]["offline"].get<uint64_t>() > 0);
}

TEST_CASE("async D-PSGD over epidemic learns the smoke task") {
  const json s = run_summary("dpsgd", {"--set", R"(/time/mode="async")", "--set",
                                       topology(R"({"kind":"epidemic","s":2})")});
  CHECK(s["status"] == "ok");
  CHECK(s["final"]["accuracy_mean"].get<double>() > 0.5);
}

TEST_CASE("a sequence, DETSGRAD and CHOCO over a dynamic topology in async mode exit 2 naming "
          "/topology/dynamic") {
  const std::string sequence =
      topology(R"({"kind":"sequence","every":5,"topologies":[{"kind":"ring"},{"kind":"star"}]})");
  const std::string epidemic = topology(R"({"kind":"epidemic","s":2})");
  const std::vector<std::vector<std::string>> refused = {
      {"run", smoke("dpsgd"), "--set", R"(/time/mode="async")", "--set", sequence},
      {"run", smoke("detsgrad-async"), "--set", epidemic},
      {"run", smoke("dpsgd"), "--set", R"(/time/mode="async")", "--set",
       R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"random_k","fraction":0.2}})",
       "--set", R"(/trigger={"kind":"always"})", "--set", epidemic}};
  for (std::vector<std::string> args : refused) {
    CAPTURE(args.back());
    args.insert(args.end(), {"-o", scratch("refused"), "--quiet"});
    const Result r = run_dlsim(args);
    CHECK(r.code == 2);
    CHECK(r.err.find("/topology/dynamic: ") != std::string::npos);
    CHECK(r.err.find("runs in sync mode only") != std::string::npos);
  }
}

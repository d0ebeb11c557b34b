// Checkpoints as a user meets them: the dlsim binary killed with SIGKILL at random moments and
// started again, until it finishes; then its results against a run that was never interrupted.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "binary_runner.hpp"
#include "sim/core/random.hpp"
#include "sim/run/checkpoint.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using dlsim::testing::read_text;

namespace {

using Clock = std::chrono::steady_clock;

fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(DLSIM_BINARY_DIR) / "test-files" / "checkpoints" /
                     (std::to_string(getpid()) + "-" + name);
  fs::remove_all(p);
  fs::remove_all(p.string() + ".tmp");
  fs::create_directories(p.parent_path());
  return p;
}

std::string smoke(const std::string& name) {
  return std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/" + name + ".json";
}

struct Attempt {
  bool killed = false;
  int exit_code = -1;
  std::string err;
};

// Starts build/dlsim with `args` in a child process, stdout to /dev/null, stderr to err_file.
pid_t spawn(const std::vector<std::string>& args, const fs::path& err_file) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(null, 1);
    dup2(err, 2);
    std::vector<char*> argv;
    const std::string binary = std::string(DLSIM_BINARY_DIR) + "/dlsim";
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// Runs build/dlsim with `args`; kills it with SIGKILL after `kill_after` unless it ended first,
// or, when `kill_when_exists` names a file, as soon as that file exists.
Attempt run_until(const std::vector<std::string>& args, std::chrono::microseconds kill_after,
                  const fs::path& err_file, const fs::path& kill_when_exists = {}) {
  const pid_t pid = spawn(args, err_file);
  Attempt a;
  const auto deadline = Clock::now() + kill_after;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (kill_when_exists.empty() ? Clock::now() >= deadline : fs::exists(kill_when_exists)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      a.killed = WIFSIGNALED(status);
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (!a.killed) a.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  a.err = read_text(err_file);
  return a;
}

std::string fingerprint(const fs::path& run) {
  return json::parse(read_text(run / "summary.json"))["fingerprint"];
}

// summary.json's communication counts (all simulated: the same for a resumed run).
json comm_counts(const fs::path& run) {
  return json::parse(read_text(run / "summary.json"))["comm"];
}

// Kills `dlsim run SCENARIO ARGS --checkpoint-every 5` at random moments and starts it again
// until it finishes; checks its fingerprint, communication counts and metrics.csv against an
// uninterrupted run.
void check_survives_kills(const std::string& name, const std::vector<std::string>& args) {
  const fs::path reference = scratch(name + "-reference");
  std::vector<std::string> command{"run", smoke(name), "--quiet"};
  command.insert(command.end(), args.begin(), args.end());
  std::vector<std::string> first = command;
  first.insert(first.end(), {"-o", reference.string()});
  const auto start = Clock::now();
  REQUIRE(run_until(first, std::chrono::minutes(5), reference.string() + ".err").exit_code == 0);
  const auto whole = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);

  const fs::path out = scratch(name + "-killed");
  command.insert(command.end(), {"-o", out.string(), "--checkpoint-every", "5"});
  dlsim::RandomStream rng(7, "kills", 0);  // the kill times: random, but the same every time
  // On a loaded machine (or under sanitizers) starting and resuming can take most of `whole`:
  // after an attempt that wrote no new checkpoint the next kill comes later, so every run ends.
  const fs::path checkpoint = fs::path(out.string() + ".tmp") / dlsim::kCheckpointName;
  std::optional<fs::file_time_type> last_checkpoint;
  double stretch = 1.0;
  int kills = 0, resumes = 0, restarts = 0;
  bool kill_at_checkpoint = false;
  for (int attempt = 0;; ++attempt) {
    REQUIRE_MESSAGE(attempt < 500, "no progress after " << kills << " kills");
    const auto after = std::chrono::microseconds(static_cast<int64_t>(
        rng.uniform(0.05, 0.9) * stretch * static_cast<double>(whole.count())));
    const Attempt a = run_until(command, after, out.string() + ".err",
                                kill_at_checkpoint ? checkpoint : fs::path{});
    kill_at_checkpoint = false;
    resumes += a.err.find("dlsim: resuming from ") != std::string::npos ? 1 : 0;
    if (a.killed) {
      ++kills;
      std::error_code ec;
      const fs::file_time_type written = fs::last_write_time(checkpoint, ec);
      const bool progressed = !ec && written != last_checkpoint;
      if (!ec) last_checkpoint = written;
      stretch = progressed ? 1.0 : stretch * 1.5;
      continue;
    }
    REQUIRE_MESSAGE(a.exit_code == 0, a.err);
    // A short run (or one sped up since the reference run was timed) can end before any kill
    // found a checkpoint to resume from: start it over and kill it as soon as its first
    // checkpoint is written, so that the next attempt resumes for certain.
    if (resumes == 0 && restarts < 3) {
      ++restarts;
      fs::remove_all(out);
      fs::remove_all(out.string() + ".tmp");
      last_checkpoint.reset();
      stretch = 1.0;
      kill_at_checkpoint = true;
      continue;
    }
    break;
  }
  MESSAGE(name << ": " << kills << " kills, " << resumes << " resumes, " << restarts
               << " restarts");
  CHECK(resumes > 0);  // the test did what it says
  CHECK(fingerprint(out) == fingerprint(reference));
  CHECK(comm_counts(out) == comm_counts(reference));
  CHECK(read_text(out / "metrics.csv") == read_text(reference / "metrics.csv"));
  CHECK_FALSE(fs::exists(out / dlsim::kCheckpointName));
  CHECK_FALSE(fs::exists(out.string() + ".tmp"));
}

// A run interrupted right after its first checkpoint: its OUT.tmp.
fs::path interrupted(const std::string& tag) {
  const fs::path out = scratch(tag);
  const std::vector<std::string> command{"run", smoke("detsgrad"), "--quiet", "-o", out.string(),
                                   "--set", "/run/iterations=400", "--checkpoint-every", "10"};
  const fs::path file = fs::path(out.string() + ".tmp") / dlsim::kCheckpointName;
  // Killed as soon as the checkpoint is there: polled well within the run's length.
  const pid_t pid = spawn(command, out.string() + ".err");
  int status = 0;
  while (!fs::exists(file) && waitpid(pid, &status, WNOHANG) == 0)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  REQUIRE_MESSAGE(fs::exists(file), "the run ended before its first checkpoint");
  return out;
}

}  // namespace

TEST_CASE("a sync run killed with SIGKILL at random moments and resumed gives the same results") {
  check_survives_kills("detsgrad", {"--set", "/run/iterations=600"});
}

TEST_CASE("an async run killed with SIGKILL at random moments and resumed gives the same results") {
  // Messages in flight, lossy links with their random streams, pull requests and replies.
  check_survives_kills("gossip-async-lossy", {"--set", "/run/iterations=400"});
  check_survives_kills("detsgrad-async", {"--set", "/run/iterations=400"});
}

TEST_CASE("compressed runs killed with SIGKILL at random moments and resumed give the same results") {
  // Compressed messages in flight, holders' own copies after losses, CHOCO's copies.
  check_survives_kills("detsgrad-async",
                       {"--set", "/run/iterations=400", "--set", "/network/loss=0.2", "--set",
                        R"(/algorithm/compression=[{"kind":"top_k","k":30},{"kind":"qsgd","levels":4}])"});
  check_survives_kills("dpsgd", {"--set", "/run/iterations=300", "--set",
                                 R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"random_k","fraction":0.2}})",
                                 "--set", R"(/trigger={"kind":"always"})"});
}

TEST_CASE("per-tensor runs killed with SIGKILL at random moments and resumed give the same results") {
  // Partial messages in flight, holders' own copies after losses, the adaptive thresholds.
  check_survives_kills("dpsgd", {"--set", "/run/iterations=400", "--set",
                                 R"(/algorithm={"kind":"eventgrad"})", "--set",
                                 R"(/trigger={"kind":"adaptive","horizon":0.9,"warmup":5})",
                                 "--set", "/network/loss=0.2"});
  check_survives_kills("detsgrad", {"--set", "/run/iterations=400", "--set",
                                    R"(/trigger={"kind":"threshold","v0":0.05,"granularity":"layer"})"});
}

TEST_CASE("dynamic-topology runs killed with SIGKILL and resumed give the same results") {
  // The overlay's draws (epidemic per agent, matchings) and a sequence's current member.
  check_survives_kills("dpsgd", {"--set", "/run/iterations=400", "--set",
                                 R"(/topology={"dynamic":{"kind":"epidemic","s":2}})", "--set",
                                 "/network/loss=0.2"});
  check_survives_kills(
      "dpsgd", {"--set", "/run/iterations=400", "--set",
                R"(/topology={"dynamic":{"kind":"sequence","every":7,"topologies":[{"kind":"ring"},{"kind":"star"}]}})"});
  check_survives_kills("dpsgd", {"--set", "/run/iterations=400", "--set",
                                 R"(/topology={"dynamic":{"kind":"random_matching"}})"});
  // DETSGRAD: the round's sources, copies and forced sends.
  check_survives_kills(
      "detsgrad", {"--set", "/run/iterations=400", "--set",
                   R"(/topology={"dynamic":{"kind":"sequence","every":5,"topologies":[{"kind":"ring"},{"kind":"star"}]}})"});
  check_survives_kills("detsgrad", {"--set", "/run/iterations=400", "--set",
                                    R"(/topology={"dynamic":{"kind":"epidemic","s":2}})"});
  // Gossip: the overlay's matchings drawn by the algorithm's own overlay.
  check_survives_kills("gossip-pull", {"--set", "/run/iterations=3000", "--set",
                                       R"(/topology={"dynamic":{"kind":"random_matching"}})"});
  // CHOCO: sources, which copies are held, whole copies on new edges.
  check_survives_kills(
      "dpsgd", {"--set", "/run/iterations=300", "--set",
                R"(/algorithm={"kind":"choco","gamma":0.2,"compression":{"kind":"random_k","fraction":0.2}})",
                "--set", R"(/trigger={"kind":"always"})", "--set", "/network/loss=0.1", "--set",
                R"(/topology={"dynamic":{"kind":"sequence","every":4,"topologies":[{"kind":"ring"},{"kind":"star"}]}})"});
}

TEST_CASE("async dynamic-topology runs killed with SIGKILL and resumed give the same results") {
  // Each agent's own draws and current targets, D-PSGD's inboxes (the latest model per sender),
  // gossip's peer of the iteration in progress.
  // A straggler, so that checkpoints (taken when the slowest agent finishes an iteration) find
  // the others with models received and not yet averaged.
  check_survives_kills("dpsgd", {"--set", "/run/iterations=400", "--set", R"(/time/mode="async")",
                                 "--set", R"(/topology={"dynamic":{"kind":"epidemic","s":2}})",
                                 "--set", "/network/loss=0.2", "--set",
                                 R"(/time/compute/stragglers={"fraction":0.25,"factor":4})"});
  check_survives_kills("gossip-async-lossy",
                       {"--set", "/run/iterations=400", "--set",
                        R"(/topology={"dynamic":{"kind":"random_matching","over":{"kind":"ring"}}})"});
}

TEST_CASE("churn runs killed with SIGKILL and resumed give the same results") {
  // Markov states and their streams, rejoin pulls, agents offline at the checkpoint.
  check_survives_kills(
      "detsgrad", {"--set", "/run/iterations=600", "--set",
                   R"(/churn={"kind":"markov","mean_online":"30ms","mean_offline":"10ms","rejoin":"pull"})"});
  check_survives_kills(
      "dpsgd", {"--set", "/run/iterations=400", "--set",
                R"(/churn={"kind":"markov","mean_online":"20ms","mean_offline":"20ms"})"});
  // Async: agents offline in the iteration they were in at the checkpoint (no gradient saved),
  // or waiting for their rejoin model.
  check_survives_kills(
      "detsgrad-async", {"--set", "/run/iterations=400", "--set",
                         R"(/churn={"kind":"markov","mean_online":"20ms","mean_offline":"20ms","rejoin":"pull"})"});
}

TEST_CASE("runs with link failures killed with SIGKILL and resumed give the same results") {
  // Link states and their streams, routes forgotten and recomputed, messages in flight on them.
  check_survives_kills("gossip-async-lossy",
                       {"--set", "/run/iterations=400", "--set",
                        R"(/network/failures={"kind":"markov","mtbf":"20ms","mttr":"5ms"})"});
}

TEST_CASE("runs with full send buffers killed with SIGKILL and resumed give the same results") {
  // 1 Mbit/s links: copies waiting, superseded, refused or blocking their senders; compressed
  // deltas blocking; the overload watch past its 1 s stretch.
  for (const char* mode : {"\"coalesce\"", "\"drop\"", "\"block\""})
    check_survives_kills(
        "detsgrad-async",
        {"--set", "/run/iterations=300", "--set", "/network/bandwidth=\"1Mbps\"", "--set",
         "/network/send_buffer=2", "--set", std::string("/network/when_full=") + mode});
  check_survives_kills(
      "detsgrad-async",
      {"--set", "/run/iterations=300", "--set", "/network/bandwidth=\"1Mbps\"", "--set",
       "/network/send_buffer=2", "--set", R"(/algorithm/compression={"kind":"top_k","k":30})"});
}

TEST_CASE("Byzantine runs killed with SIGKILL and resumed give the same results") {
  // The attackers' random streams (gaussian), crafted copies held by their targets, DETSGRAD's
  // robust consensus and an attacker that ignores its trigger.
  const std::string gaussian = R"("attack":{"kind":"gaussian","sigma":0.5})";
  check_survives_kills(
      "detsgrad", {"--set", "/run/iterations=400", "--set",
                   R"(/byzantine={"agents":[1],)" + gaussian + R"(,"sends":"every_iteration"})",
                   "--set", R"(/algorithm/aggregation={"rule":"median"})"});
  check_survives_kills("dpsgd", {"--set", "/run/iterations=300", "--set",
                                 R"(/byzantine={"agents":[1],)" + gaussian + "}"});
}

TEST_CASE("maxmin-sharing runs killed with SIGKILL and resumed give the same results") {
  // Flows in flight at their shares, ends that moved, lossy links' streams, copies coalesced
  // into held flows, senders waiting for kSenderReady (gossip's requests and replies block).
  for (const char* name : {"detsgrad-async", "gossip-async-lossy"})
    check_survives_kills(name, {"--set", "/run/iterations=300", "--set",
                                "/network/bandwidth=\"1Mbps\"", "--set",
                                R"(/time/compute={"step":"5ms"})", "--set",
                                "/network/send_buffer=2", "--set", "/network/sharing=\"maxmin\""});
}

TEST_CASE("--resume continues an interrupted run from its folder alone") {
  const fs::path out = interrupted("resume");
  const auto r = dlsim::testing::run_binary(
      "resume", "run --quiet --resume " + out.string() + ".tmp");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const fs::path reference = scratch("resume-reference");
  REQUIRE(dlsim::testing::run_binary("resume-ref", "run " + smoke("detsgrad") +
                                                       " --quiet --set /run/iterations=400 -o " +
                                                       reference.string())
              .exit_code == 0);
  CHECK(fingerprint(out) == fingerprint(reference));
}

TEST_CASE("a checkpoint of another scenario is refused, naming the first key that differs") {
  const fs::path out = interrupted("other-scenario");
  const auto r = dlsim::testing::run_binary(
      "other-scenario", "run " + smoke("detsgrad") + " --quiet --set /run/iterations=401 -o " +
                            out.string());
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("checkpoint.bin: written for another scenario (they differ at "
                           "/run/iterations)") != std::string::npos,
                r.err);
  CHECK(fs::exists(fs::path(out.string() + ".tmp") / dlsim::kCheckpointName));  // kept
}

TEST_CASE("a damaged checkpoint is refused with exit 2, naming the file") {
  const fs::path out = interrupted("damaged");
  const fs::path file = fs::path(out.string() + ".tmp") / dlsim::kCheckpointName;
  fs::resize_file(file, fs::file_size(file) - 100);
  const auto r = dlsim::testing::run_binary(
      "damaged", "run " + smoke("detsgrad") + " --quiet --set /run/iterations=400 -o " +
                     out.string());
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.starts_with("dlsim: " + file.string() + ": damaged checkpoint at byte "),
                r.err);
}

TEST_CASE("--checkpoint-every takes iterations or a wall-clock duration") {
  CHECK(dlsim::parse_checkpoint_every("1000").every_iterations == 1000);
  CHECK(dlsim::parse_checkpoint_every("90s").every_seconds == 90.0);
  CHECK(dlsim::parse_checkpoint_every("10min").every_seconds == 600.0);
  CHECK(dlsim::parse_checkpoint_every("1.5h").every_seconds == 5400.0);
  for (const char* bad : {"0", "-5", "", "ten", "5 min", "0s", "1e3", "min"})
    CHECK_THROWS_WITH_AS(dlsim::parse_checkpoint_every(bad),
                         doctest::Contains("--checkpoint-every: expected iterations"),
                         dlsim::InputError);
}

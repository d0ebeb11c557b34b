// The simulator's windows over MPI ranks (sim/core/rank_windows.cpp, sim/distributed/): the toy
// network (programs/toy_network.cpp) under mpirun -np R must print what one process prints, bit
// for bit; a rank that throws must end every rank with an error. Skipped when mpirun cannot start.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../skip.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kToy = std::string(DLSIM_BINARY_DIR) + "/tests/toy_network";

fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(DLSIM_BINARY_DIR) / "tests" / "distributed" /
                     (std::to_string(getpid()) + "-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Outcome {
  int exit_code;  // the command's; 124: stopped by timeout
  std::string out, err;
};

// `command` in `dir` with stdout and stderr kept apart, stopped after 60 s.
Outcome run(const std::string& command, const fs::path& dir) {
  const fs::path out = dir / "out.txt", err = dir / "err.txt";
  const int status = std::system(
      fmt::format("timeout 60 {} > {} 2> {}", command, out.string(), err.string()).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
}

std::string mpirun(int ranks) {
#if defined(__SANITIZE_ADDRESS__)
  // `env`: the command runs under `timeout`, which takes no variable assignments.
  const std::string env = "env ASAN_OPTIONS=detect_leaks=0 ";  // Open MPI's plug-ins: see CONTRIBUTING
#else
  const std::string env;
#endif
  return fmt::format("{}mpirun --allow-run-as-root --oversubscribe -np {} ", env, ranks);
}

// True when mpirun can start two ranks here; otherwise marks the test skipped.
bool mpirun_works(const fs::path& dir) {
  const Outcome probe = run(mpirun(2) + "true", dir);
  if (probe.exit_code != 0) {
    dlsim::skip_test("mpirun -np 2 cannot start here: " + probe.out + probe.err);
    return false;
  }
  return true;
}

// The toy's line in one process, then under 2, 3 and 4 ranks: each must be the same.
void check_ranks_agree(const std::string& args, const std::string& name) {
  const fs::path dir = scratch(name);
  if (!mpirun_works(dir)) return;
  const Outcome one = run(kToy + " " + args, dir);
  REQUIRE(one.exit_code == 0);
  INFO("one process: ", one.out);
  REQUIRE(one.out.rfind("fingerprint 0x", 0) == 0);
  CHECK(run(kToy + " " + args + " --virtual 3", dir).out == one.out);
  for (int ranks : {2, 3, 4}) {
    CAPTURE(ranks);
    const Outcome r = run(mpirun(ranks) + kToy + " " + args, dir);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == one.out);
  }
}

}  // namespace

TEST_CASE("a ring of 12 nodes over 2, 3 and 4 MPI ranks gives one process's results") {
  check_ranks_agree("ring 12", "ring");
}

TEST_CASE("a random graph of 40 nodes over 2, 3 and 4 MPI ranks gives one process's results") {
  check_ranks_agree("random 40", "random");
}

TEST_CASE("a message arriving exactly one lookahead after a window's start keeps its order") {
  // Node 0 (rank 0) sends node 1 (rank 1) a message at each of its ticks, exactly one lookahead
  // ahead, onto an instant where node 1 has its own tick: the message (origin 0) must run first.
  // A window that ran events at T + L too would run node 1's tick first; a wider one would hand
  // rank 1 a message in its past.
  check_ranks_agree("pair 2", "pair");
}

TEST_CASE("a rank that throws mid-run ends every rank with an error, none left waiting") {
  const fs::path dir = scratch("throw");
  if (!mpirun_works(dir)) return;
  // Node 5 is on rank 1 of 3 (nodes 4 to 7); it throws at its first event from 10 ms on.
  const Outcome r = run(mpirun(3) + kToy + " ring 12 --throw-at 5:10000", dir);
  INFO(r.out, r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code != 124);  // not stopped by the timeout: no rank was left waiting
  CHECK(r.out.find("fingerprint") == std::string::npos);
  CHECK(r.err.find("toy_network rank 1: toy: node 5 failed on purpose at") != std::string::npos);
  for (int rank : {0, 2})
    CHECK(r.err.find(fmt::format("toy_network rank {}: rank {}: another rank failed", rank,
                                 rank)) != std::string::npos);
}

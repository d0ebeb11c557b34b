// The simulator's windows over MPI ranks (sim/core/rank_windows.cpp, sim/distributed/): the toy
// network (programs/toy_network.cpp) under mpirun -np R must print what one process prints, bit
// for bit; a rank that throws must end every rank with an error. Skipped when mpirun cannot start.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

#include "mpirun.hpp"

using namespace dlsim::testing;

namespace {

const std::string kToy = std::string(DLSIM_BINARY_DIR) + "/tests/toy_network";

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

TEST_CASE("a random graph of 40 nodes shipped in rounds of one event over MPI ranks too") {
  // A byte a round: every window's events go one per rank and round (Allgather's "more").
  check_ranks_agree("random 40 --round-bytes 1", "random-rounds");
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

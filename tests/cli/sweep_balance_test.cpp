// `dlsim sweep` under mpirun with runs of very different lengths: rank 0 deals the next run to
// whichever rank is free, so the sweep ends near its longest run; a resumed MPI sweep runs only
// what is missing.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../skip.hpp"
#include "sweep_processes.hpp"
#include "tests/sweep/sweep_csv_text.hpp"

namespace fs = std::filesystem;

namespace {

using dlsim::testing::mpirun_sweep;
using dlsim::testing::mpirun_works;

fs::path scratch(const std::string& name) {
  return dlsim::testing::sweep_scratch("balance-" + name);
}

// Eight runs of the quadratic smoke scenario, the second eight times as long as the others
// (a short one takes about half a second here).
std::string write_uneven_sweep(const fs::path& dir) {
  constexpr int kShort = 6000;
  std::vector<int> iterations(8, kShort);
  iterations[1] = 8 * kShort;
  const fs::path file = dir / "uneven.json";
  std::ofstream(file) << R"({"base": ")" << DLSIM_SOURCE_DIR
                      << R"(/scenarios/smoke/quadratic-detsgrad.json",
    "set": {"/run/eval_every": 0}, "zip": {"/run/iterations": )"
                      << nlohmann::json(iterations).dump() << "}}";
  return file.string();
}

struct RunSpan {
  double start_s, end_s;  // on the file system's clock
};

// When each run of OUT started and ended, in the sweep's order: its summary.json is written as
// it ends, and its wall_s says how long it took.
std::vector<RunSpan> run_spans(const fs::path& out) {
  std::vector<fs::path> folders;
  for (const fs::directory_entry& e : fs::directory_iterator(out / "runs"))
    folders.push_back(e.path());
  std::sort(folders.begin(), folders.end());  // ids are the run's index, zero-padded
  std::vector<RunSpan> spans;
  for (const fs::path& folder : folders) {
    const fs::path summary = folder / "summary.json";
    const double end_s =
        std::chrono::duration<double>(fs::last_write_time(summary).time_since_epoch()).count();
    const double wall_s = nlohmann::json::parse(read_text(summary))["time"]["wall_s"];
    spans.push_back({end_s - wall_s, end_s});
  }
  return spans;
}

// How long runs of these durations take on two ranks: dealt in order to whichever is free
// first, or split statically (run i on rank i mod 2, as before).
double dealt_s(const std::vector<double>& durations) {
  double free_s[2] = {0, 0};
  for (double d : durations) *std::min_element(free_s, free_s + 2) += d;
  return std::max(free_s[0], free_s[1]);
}
double static_split_s(const std::vector<double>& durations) {
  double share_s[2] = {0, 0};
  for (size_t i = 0; i < durations.size(); ++i) share_s[i % 2] += durations[i];
  return std::max(share_s[0], share_s[1]);
}

}  // namespace

TEST_CASE("mpirun -np 2 ends seven short runs and one eight times as long near the long run") {
  const fs::path dir = scratch("uneven");
  if (!mpirun_works(dir)) return;
  const std::string sweep = write_uneven_sweep(dir);
  std::string log;
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(mpirun_sweep(sweep, dir / "ranks", 600, &log) == 0);
  const double mpirun_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(log);
  CHECK(log.find("ran 8, reused 0 finished before (rank 0 of 2)") != std::string::npos);

  // Measured on the runs themselves, so MPI's start-up does not count, and compared with what
  // the runs' own durations predict, so a loaded machine (each run's wall_s grows with it) does
  // not decide the outcome. Dealt in order, one rank runs the long run while the other runs the
  // short ones: about the long run. The static split gave the long run's rank three short ones.
  const std::vector<RunSpan> spans = run_spans(dir / "ranks");
  REQUIRE(spans.size() == 8);
  std::vector<double> durations;
  double first = spans[0].start_s, last = spans[0].end_s, total_s = 0;
  for (const RunSpan& s : spans) {
    durations.push_back(s.end_s - s.start_s);
    first = std::min(first, s.start_s);
    last = std::max(last, s.end_s);
    total_s += s.end_s - s.start_s;
  }
  const double sweep_s = last - first, short_s = durations[0];
  const double dealt = dealt_s(durations), static_split = static_split_s(durations);
  MESSAGE(
      fmt::format("runs: long {:.2f} s, first short {:.2f} s, all {:.2f} s; sweep {:.2f} s "
                  "(mpirun {:.2f} s); predicted dealt {:.2f} s, static split {:.2f} s",
                  durations[1], short_s, total_s, sweep_s, mpirun_s, dealt, static_split));
  // A loaded machine stretches short runs most: when these durations predict the two schemes
  // within 10 % of each other, this run cannot tell them apart, and says so instead of passing.
  if (!(static_split > 1.1 * dealt))
    return dlsim::skip_test(fmt::format(
        "the runs' durations predict {:.2f} s dealt and {:.2f} s split statically: too close to "
        "tell apart on this loaded machine",
        dealt, static_split));
  CHECK(sweep_s < (dealt + static_split) / 2);
}

TEST_CASE("a resumed mpirun -np 2 sweep runs only its missing runs, with the same sweep.csv") {
  const fs::path dir = scratch("resume");
  if (!mpirun_works(dir)) return;
  const fs::path file = dir / "small.json";
  std::ofstream(file) << R"({"base": ")" << DLSIM_SOURCE_DIR
                      << R"(/scenarios/smoke/quadratic-detsgrad.json",
    "grid": {"/trigger/v0": [0, 0.1, 0.3]}, "seeds": [1, 2]})";
  const fs::path out = dir / "ranks";
  std::string log;
  REQUIRE(mpirun_sweep(file.string(), out, 600, &log) == 0);
  const std::string csv = read_text(out / "sweep.csv");
  fs::remove_all(out / "runs" / "0001-s2");
  fs::remove_all(out / "runs" / "0002-s1");
  REQUIRE(mpirun_sweep(file.string(), out, 600, &log) == 0);
  INFO(log);
  CHECK(log.find("ran 2, reused 4 finished before (rank 0 of 2)") != std::string::npos);
  CHECK(without_wall(read_text(out / "sweep.csv")) == without_wall(csv));
}

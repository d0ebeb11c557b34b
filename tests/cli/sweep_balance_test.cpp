// `dlsim sweep` under mpirun with runs of very different lengths: rank 0 deals the next run to
// whichever rank is free, so the sweep ends near its longest run; a resumed MPI sweep runs only
// what is missing.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../skip.hpp"
#include "sim/sweep/rank_group.hpp"
#include "tests/sweep/sweep_csv_text.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kDlsim = std::string(DLSIM_BINARY_DIR) + "/dlsim";

fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(DLSIM_BINARY_DIR) / "tests" / "cli_sweeps" /
                     (std::to_string(getpid()) + "-balance-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// True when `mpirun -np 2` can start here; else the test is marked skipped (or fails: a build
// without MPI on a machine with mpirun is a mistake, as in sweep_command_test.cpp).
bool mpirun_works(const fs::path& dir) {
  if (!dlsim::built_with_mpi()) {
    if (std::system("command -v mpirun > /dev/null 2>&1") == 0)
      FAIL("mpirun is installed but this build has no MPI: re-run cmake");
    dlsim::skip_test("this build has no MPI (apt-get install libopenmpi-dev openmpi-bin)");
    return false;
  }
  const std::string log = (dir / "probe.log").string();
  if (std::system(fmt::format("timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 true "
                              "> {} 2>&1",
                              log)
                      .c_str()) != 0) {
    dlsim::skip_test("mpirun -np 2 cannot start here: " + read_text(log));
    return false;
  }
  return true;
}

// `dlsim sweep SWEEP -o OUT` under mpirun -np 2; its exit code, the log in INFO.
int mpirun_sweep(const std::string& sweep, const fs::path& out, std::string* log_text = nullptr) {
#if defined(__SANITIZE_ADDRESS__)
  const std::string rank_env = "ASAN_OPTIONS=detect_leaks=0 ";  // see sweep_command_test.cpp
#else
  const std::string rank_env;
#endif
  const std::string log = out.string() + ".log";
  const int code =
      std::system(fmt::format("{}timeout 600 mpirun --allow-run-as-root --oversubscribe "
                              "-np 2 {} sweep {} -o {} > {} 2>&1",
                              rank_env, kDlsim, sweep, out.string(), log)
                      .c_str());
  if (log_text) *log_text = read_text(log);
  return code;
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
  REQUIRE(mpirun_sweep(sweep, dir / "ranks", &log) == 0);
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
  REQUIRE(mpirun_sweep(file.string(), out, &log) == 0);
  const std::string csv = read_text(out / "sweep.csv");
  fs::remove_all(out / "runs" / "0001-s2");
  fs::remove_all(out / "runs" / "0002-s1");
  REQUIRE(mpirun_sweep(file.string(), out, &log) == 0);
  INFO(log);
  CHECK(log.find("ran 2, reused 4 finished before (rank 0 of 2)") != std::string::npos);
  CHECK(without_wall(read_text(out / "sweep.csv")) == without_wall(csv));
}

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "tests/sweep/sweep_csv_text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace dlsim;

namespace {

// ctest runs test cases as parallel processes: each gets its own folder.
fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(DLSIM_BINARY_DIR) / "tests" / "sweep_runs" /
                     (std::to_string(getpid()) + "-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string smoke(const std::string& name) {
  return std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/" + name + ".json";
}

// Writes a sweep file into `dir` with the given JSON text; "BASE" stands for the smoke scenario.
std::string sweep_file(const fs::path& dir, std::string text,
                       const std::string& base = smoke("detsgrad")) {
  for (size_t at = text.find("BASE"); at != std::string::npos; at = text.find("BASE"))
    text.replace(at, 4, base);
  const fs::path file = dir / "sweep.json";
  std::ofstream(file) << text;
  return file.string();
}

std::string error_of(const std::string& file) {
  try {
    load_sweep(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

SweepReport run(const SweepSpec& spec, const fs::path& out, unsigned jobs) {
  SweepOptions options;
  options.out = out;
  options.jobs = jobs;
  SingleProcess one;
  std::ostringstream log;
  return run_sweep(spec, options, one, log);
}

}  // namespace

TEST_CASE("grid x zip x seeds: run count, ids, order and values") {
  const fs::path dir = scratch("expand");
  const SweepSpec spec = load_sweep(sweep_file(dir, R"({
    "base": "BASE",
    "grid": {"/trigger/v0": [0, 0.05, 0.1], "/topology/kind": ["ring", "complete"]},
    "zip": {"/algorithm/a": [0.05, 0.1], "/algorithm/b": [0.1, 0.2]},
    "seeds": [1, 2]})"));
  REQUIRE(spec.runs.size() == 3 * 2 * 2 * 2);
  CHECK(spec.varied ==
        std::vector<std::string>{"/trigger/v0", "/topology/kind", "/algorithm/a", "/algorithm/b"});
  CHECK(spec.runs[0].id == "0000-s1");
  CHECK(spec.runs[1].id == "0000-s2");
  CHECK(spec.runs[2].id == "0001-s1");
  CHECK(spec.runs.back().id == "0011-s2");
  // Grid keys nest in file order (the last fastest), then zip, then seeds.
  const SweepRun& r = spec.runs[2 * 3 + 1];  // point 3: v0 index 0, kind index 1, zip index 1
  CHECK(r.point == 3);
  CHECK(r.seed == 2);
  CHECK(r.values == std::vector<json>{0, "complete", 0.1, 0.2});
  CHECK(r.resolved["topology"]["kind"] == "complete");
  CHECK(r.resolved["algorithm"]["a"] == 0.1);
  CHECK(r.resolved["algorithm"]["b"] == 0.2);
  CHECK(r.resolved["seed"] == 2);
  CHECK(spec.runs[8].values == std::vector<json>{0.05, "ring", 0.05, 0.1});  // point 4
  CHECK(spec.runs[12].values == std::vector<json>{0.05, "complete", 0.05, 0.1});  // point 6
}

TEST_CASE("without seeds a sweep runs the base seed once per point, and set applies to every run") {
  const fs::path dir = scratch("noseeds");
  const SweepSpec spec = load_sweep(sweep_file(dir, R"({
    "base": "BASE", "set": {"/run/iterations": 40}, "grid": {"/trigger/v0": [0, 1]}})"));
  REQUIRE(spec.runs.size() == 2);
  CHECK(spec.runs[0].id == "0000-s1");
  CHECK(spec.runs[1].id == "0001-s1");
  CHECK(spec.runs[1].resolved["run"]["iterations"] == 40);
}

TEST_CASE("a bad sweep file names the file and the pointer before any run") {
  const fs::path dir = scratch("bad");
  const auto bad = [&](const std::string& text) { return error_of(sweep_file(dir, text)); };
  const std::string file = (dir / "sweep.json").string();
  CHECK(bad(R"({"base": "BASE", "grid": {"/trigger/v0": []}})") ==
        file + ": /grid/~1trigger~1v0: the list of values is empty");
  CHECK(bad(R"({"base": "missing.json"})")
            .starts_with(file + ": /base: " + (dir / "missing.json").string() + ": cannot read"));
  CHECK(bad(R"({"grid": {"/trigger/v0": [1]}})") == file + ": /base: missing: the base scenario file");
  CHECK(bad(R"({"base": "BASE", "grids": {}})") == file + ": /grids: unknown key");
  CHECK(bad(R"({"base": "BASE", "seeds": [1, 1]})") == file + ": /seeds/1: this seed is repeated");
  CHECK(bad(R"({"base": "BASE", "zip": {"/algorithm/a": [0.1], "/algorithm/b": [0.1, 0.2]}})")
            .starts_with(file + ": /zip/~1algorithm~1b: has 2 values but /algorithm/a has 1"));
  CHECK(bad(R"({"base": "BASE", "grid": {"/trigger/v0": [1]}, "set": {"/trigger/v0": 2}})") ==
        file + ": /grid/~1trigger~1v0: this pointer is varied or set twice");
  // An unknown key in the scenario: the grid entry and the value's index are named.
  const std::string unknown = bad(R"({"base": "BASE", "grid": {"/trigger/v00": [1, 2]}})");
  CHECK(unknown.starts_with(file + ": /grid/~1trigger~1v00/0: run 0000-s1 (/trigger/v00=1): "));
  CHECK(unknown.ends_with("/trigger/v00: unknown key"));
  // An out-of-range value: its index in the list.
  const std::string range = bad(R"({"base": "BASE", "grid": {"/trigger/v0": [1, -1]}})");
  CHECK(range.starts_with(file + ": /grid/~1trigger~1v0/1: run 0001-s1 (/trigger/v0=-1): "));
}

TEST_CASE("a base scenario that is not a JSON object is bad input, not an internal error") {
  // Found by tools/fuzz (sweep): with "seeds", setting /seed in an array threw a json type_error.
  const fs::path dir = scratch("base-not-object");
  const std::string base = (dir / "base.json").string();
  std::ofstream(base) << "[1, 2]";
  const std::string file = sweep_file(dir, R"({"base": "BASE", "seeds": [1]})", base);
  CHECK(error_of(file) == file + ": /base: " + base + ": a scenario is a JSON object, got array");
}

TEST_CASE("a grid of 2^64 points is refused, not wrapped to an empty sweep") {
  // Found while writing the sweep fuzz harness: 64 keys of 2 values each made 0 runs, exit 0.
  const fs::path dir = scratch("grid-overflow");
  std::string grid;
  for (int i = 0; i < 64; ++i) grid += fmt::format("{}\"/x{}\": [1, 2]", i ? ", " : "", i);
  const std::string file = sweep_file(dir, R"({"base": "BASE", "grid": {)" + grid + "}}");
  CHECK(error_of(file) == file + ": /grid/~1x63: the sweep would have 2^64 points or more");
}

TEST_CASE("a sweep of more than 100,000 runs is refused before any is expanded") {
  // 10^5 points x 2 seeds: expanded, it would hold 200,000 validated scenarios (about 1.6 GB).
  const fs::path dir = scratch("too-many");
  std::string grid;
  for (int i = 0; i < 5; ++i)
    grid += fmt::format("{}\"/x{}\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]", i ? ", " : "", i);
  const std::string file =
      sweep_file(dir, R"({"base": "BASE", "seeds": [1, 2], "grid": {)" + grid + "}}");
  CHECK(error_of(file) == file +
                              ": /grid: the sweep would have 100000 points x 2 seeds, more than "
                              "100000 runs; split it into several sweep files");
}

TEST_CASE("a sweep runs every run once, writes sweep.csv, and a second start reuses them") {
  const fs::path dir = scratch("run");
  const SweepSpec spec = load_sweep(sweep_file(dir, R"({
    "base": "BASE", "grid": {"/trigger/v0": [0, 0.05]}, "seeds": [1, 2]})"));
  const fs::path out = dir / "out";
  const SweepReport first = run(spec, out, 2);
  CHECK(first.ran == 4);
  CHECK(first.reused == 0);
  CHECK(first.counts.ok == 4);
  const std::string csv = read_text(out / "sweep.csv");
  CHECK(csv.starts_with("id,seed,/trigger/v0,status,accuracy_mean,"));
  CHECK(csv.find("\n0001-s2,2,0.05,ok,") != std::string::npos);
  for (const SweepRun& r : spec.runs) CHECK(fs::exists(out / "runs" / r.id / "metrics.csv"));

  const SweepReport second = run(spec, out, 2);
  CHECK(second.ran == 0);
  CHECK(second.reused == 4);
  CHECK(read_text(out / "sweep.csv") == csv);  // the same table, wall-clock column included

  // A changed scenario is run again; the unchanged runs are not.
  const SweepSpec changed = load_sweep(sweep_file(dir, R"({
    "base": "BASE", "grid": {"/trigger/v0": [0, 0.1]}, "seeds": [1, 2]})"));
  const SweepReport third = run(changed, out, 2);
  CHECK(third.ran == 2);
  CHECK(third.reused == 2);
}

TEST_CASE("one job and two jobs write the same sweep.csv") {
  const fs::path dir = scratch("jobs");
  const SweepSpec spec = load_sweep(sweep_file(dir, R"({
    "base": "BASE", "grid": {"/trigger/v0": [0, 0.05, 0.2]}, "seeds": [3]})"));
  run(spec, dir / "one", 1);
  run(spec, dir / "two", 2);
  CHECK(without_wall(read_text(dir / "one" / "sweep.csv")) ==
        without_wall(read_text(dir / "two" / "sweep.csv")));
}

TEST_CASE("a failed run is recorded as failed and does not stop the others") {
  const fs::path dir = scratch("failed");
  // The second point needs MNIST from a data folder that does not exist.
  const SweepSpec spec = load_sweep(sweep_file(dir, R"({
    "base": "BASE", "grid": {"/data": [
      {"dataset": "synthetic-clusters", "synthetic": {"classes": 4, "width": 16, "train": 800,
       "test": 200}, "partition": {"kind": "iid"}, "batch_size": 16},
      {"dataset": "mnist", "partition": {"kind": "iid"}, "batch_size": 16}]}})"));
  SweepOptions options;
  options.out = dir / "out";
  options.jobs = 1;
  options.data_paths.root = dir / "no-data-here";
  SingleProcess one;
  std::ostringstream log;
  const SweepReport report = run_sweep(spec, options, one, log);
  CHECK(report.counts.ok == 1);
  CHECK(report.counts.failed == 1);
  CHECK(log.str().find("run 0001-s1 failed: ") != std::string::npos);
  const std::string csv = read_text(options.out / "sweep.csv");
  CHECK(csv.find("\n0001-s1,1,") != std::string::npos);
  CHECK(csv.find(",failed,,,,") != std::string::npos);
  // A failed run is tried again by the next start; the finished one is not.
  const SweepReport again = run_sweep(spec, options, one, log);
  CHECK(again.ran == 1);
  CHECK(again.reused == 1);
}

TEST_CASE("a sweep refuses a folder that is not a sweep's") {
  const fs::path dir = scratch("refuse");
  const SweepSpec spec = load_sweep(sweep_file(dir, R"({"base": "BASE"})"));
  fs::create_directories(dir / "other");
  std::ofstream(dir / "other" / "notes.txt") << "keep me";
  CHECK_THROWS_WITH_AS(run(spec, dir / "other", 1),
                       ((dir / "other").string() +
                        ": exists and is not a sweep's folder; choose another output folder (-o)")
                           .c_str(),
                       InputError);
  CHECK(read_text(dir / "other" / "notes.txt") == "keep me");
}

TEST_CASE("every sweep file shipped in scenarios/sweeps expands into valid scenarios") {
  size_t files = 0;
  for (const fs::directory_entry& e :
       fs::directory_iterator(fs::path(DLSIM_SOURCE_DIR) / "scenarios" / "sweeps")) {
    if (e.path().extension() != ".json") continue;
    ++files;
    INFO(e.path().string());
    CHECK(!load_sweep(e.path().string()).runs.empty());
  }
  CHECK(files >= 6);
}

TEST_CASE("a cancelled sweep stops its runs, keeps the finished ones, writes no table") {
  const fs::path dir = scratch("cancel");
  const SweepSpec spec = load_sweep(sweep_file(dir, R"({
    "base": "BASE", "set": {"/run/iterations": 10}, "grid": {"/trigger/v0": [0, 0.05, 0.1]}})"));
  SweepOptions options;
  options.out = dir / "out";
  options.jobs = 1;
  // The first run finishes (10 iterations); the second is cancelled at its 5th iteration.
  int calls = 0;
  options.between_iterations = [&calls] {
    if (++calls == 15) throw Cancelled("stop");
  };
  SingleProcess one;
  std::ostringstream log;
  CHECK_THROWS_AS(run_sweep(spec, options, one, log), Cancelled);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(options.out / "runs"))
    left.push_back(e.path().filename().string());
  REQUIRE(left.size() == 1);  // the finished run's folder, nothing of the cancelled one
  CHECK(fs::exists(options.out / "runs" / left[0] / "summary.json"));
  CHECK_FALSE(fs::exists(options.out / "sweep.csv"));
  options.between_iterations = nullptr;  // started again, it runs what is missing
  CHECK(run_sweep(spec, options, one, log).counts.ok == 3);
}

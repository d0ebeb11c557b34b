// `dlsim sweep` as users run it: the built binary, killed and resumed, and under mpirun.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cli/app.hpp"
#include "sweep_processes.hpp"
#include "tests/sweep/sweep_csv_text.hpp"

namespace fs = std::filesystem;

namespace {

const std::string& kDlsim = dlsim::testing::kDlsimBinary;

fs::path scratch(const std::string& name) { return dlsim::testing::sweep_scratch(name); }

// Six runs of the DETSGRAD smoke scenario, each long enough (about half a second) that a kill
// lands in the middle of the sweep even on a loaded machine.
std::string write_sweep(const fs::path& dir) {
  const fs::path file = dir / "sweep.json";
  std::ofstream(file) << R"({"base": ")" << DLSIM_SOURCE_DIR
                      << R"(/scenarios/smoke/detsgrad.json",
    "set": {"/run/iterations": 15000, "/run/eval_every": 5000},
    "grid": {"/trigger/v0": [0, 0.05, 0.2]}, "seeds": [1, 2]})";
  return file.string();
}

int run_in_process(std::vector<std::string> args, std::string* out_text = nullptr) {
  args.insert(args.begin(), "dlsim");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = dlsim::cli::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  if (out_text) *out_text = out.str() + err.str();
  return code;
}

// Finished runs (a summary.json in place) and the inode of each summary.
std::map<std::string, ino_t> finished_runs(const fs::path& out) {
  std::map<std::string, ino_t> runs;
  if (!fs::exists(out / "runs")) return runs;
  for (const fs::directory_entry& e : fs::directory_iterator(out / "runs")) {
    const std::string ext = e.path().extension().string();
    if (ext == ".tmp" || ext == ".old") continue;  // a run being written, not a finished one
    struct stat st {};
    if (stat((e.path() / "summary.json").c_str(), &st) == 0)
      runs[e.path().filename().string()] = st.st_ino;
  }
  return runs;
}

// Starts `dlsim sweep SWEEP -o OUT --jobs 1 --quiet [--checkpoint-every N]` as a child process.
pid_t spawn_sweep(const std::string& sweep, const fs::path& out, const char* checkpoint_every) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    if (checkpoint_every)
      execl(kDlsim.c_str(), "dlsim", "sweep", sweep.c_str(), "-o", out.c_str(), "--jobs", "1",
            "--quiet", "--checkpoint-every", checkpoint_every, static_cast<char*>(nullptr));
    else
      execl(kDlsim.c_str(), "dlsim", "sweep", sweep.c_str(), "-o", out.c_str(), "--jobs", "1",
            "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

}  // namespace

TEST_CASE("a sweep killed with SIGKILL resumes: every run exactly once, the same sweep.csv") {
  const fs::path dir = scratch("kill");
  const std::string sweep = write_sweep(dir);
  const fs::path reference = dir / "reference", killed = dir / "killed";
  REQUIRE(run_in_process({"sweep", sweep, "-o", reference.string(), "--jobs", "1", "--quiet"}) ==
          0);

  const pid_t pid = spawn_sweep(sweep, killed, nullptr);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (finished_runs(killed).size() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));  // killed, not finished: else the test proves nothing
  REQUIRE_FALSE(fs::exists(killed / "sweep.csv"));
  const std::map<std::string, ino_t> before = finished_runs(killed);
  REQUIRE(before.size() >= 2);
  REQUIRE(before.size() < 6);

  std::string text;
  REQUIRE(run_in_process({"sweep", sweep, "-o", killed.string(), "--jobs", "2", "--quiet"},
                         &text) == 0);
  CHECK(text.find(fmt::format("ran {}, reused {} finished before", 6 - before.size(),
                              before.size())) != std::string::npos);
  // The runs finished before the kill were not run again: their files are the same files.
  const std::map<std::string, ino_t> after = finished_runs(killed);
  CHECK(after.size() == 6);
  for (const auto& [id, inode] : before) CHECK(after.at(id) == inode);
  for (const fs::directory_entry& e : fs::directory_iterator(killed / "runs"))
    CHECK(e.path().extension() != ".tmp");
  CHECK(without_wall(read_text(killed / "sweep.csv")) ==
        without_wall(read_text(reference / "sweep.csv")));
}

TEST_CASE("a sweep resumes from what a kill at any moment can leave on disk") {
  const fs::path dir = scratch("states");
  const std::string sweep = write_sweep(dir);
  const fs::path reference = dir / "reference";
  REQUIRE(run_in_process({"sweep", sweep, "-o", reference.string(), "--quiet"}) == 0);
  const std::string expected = without_wall(read_text(reference / "sweep.csv"));
  const auto resumed = [&](const fs::path& out) {
    std::string text;
    REQUIRE_MESSAGE(run_in_process({"sweep", sweep, "-o", out.string(), "--quiet"}, &text) == 0,
                    text);
    return without_wall(read_text(out / "sweep.csv"));
  };
  // A first start killed before sweep.json was in place: its lock and a torn sweep.json.tmp.
  const fs::path first = dir / "first";
  fs::create_directories(first);
  std::ofstream(first / ".lock").put('\0');
  std::ofstream(first / "sweep.json.tmp") << "{\"fi";
  CHECK(resumed(first) == expected);

  // Killed in the middle: one run half-written (<id>.tmp), one whose summary.json is torn, one
  // left as <id>.old by a replacement, and no sweep.csv.
  const fs::path middle = dir / "middle";
  fs::copy(reference, middle, fs::copy_options::recursive);
  fs::remove(middle / "sweep.csv");
  fs::rename(middle / "runs" / "0000-s1", middle / "runs" / "0000-s1.tmp");
  std::ofstream(middle / "runs" / "0001-s2" / "summary.json") << "{\"stat";
  fs::rename(middle / "runs" / "0002-s1", middle / "runs" / "0002-s1.old");
  CHECK(resumed(middle) == expected);
  for (const fs::directory_entry& e : fs::directory_iterator(middle / "runs"))
    CHECK(e.path().extension() == "");
}

TEST_CASE("a sweep with failed runs writes its table and exits 4") {
  const fs::path dir = scratch("failed");
  const fs::path file = dir / "sweep.json";
  std::ofstream(file) << R"({"base": ")" << DLSIM_SOURCE_DIR
                      << R"(/scenarios/smoke/detsgrad.json", "grid": {"/data": [
      {"dataset": "mnist", "partition": {"kind": "iid"}, "batch_size": 16}]}})";
  std::string text;
  CHECK(run_in_process({"sweep", file.string(), "-o", (dir / "out").string(), "--quiet",
                        "--data-dir", (dir / "no-data").string()},
                       &text) == 4);
  CHECK(text.find("dlsim: sweep: run 0000-s1 failed: ") != std::string::npos);
  CHECK(text.find("dlsim: sweep: 1 runs failed, 0 are missing") != std::string::npos);
  CHECK(read_text(dir / "out" / "sweep.csv").find("\n0000-s1,1,") != std::string::npos);
}

TEST_CASE("a bad sweep file exits 2 with the file and pointer, before any run") {
  const fs::path dir = scratch("bad");
  std::ofstream(dir / "bad.json") << R"({"base": "nowhere.json", "grid": {}})";
  std::string text;
  CHECK(run_in_process({"sweep", (dir / "bad.json").string(), "-o", (dir / "out").string()},
                       &text) == 2);
  CHECK(text.starts_with("dlsim: " + (dir / "bad.json").string() + ": /base: "));
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("mpirun -np 2 dlsim sweep writes the same sweep.csv as one process") {
  const fs::path dir = scratch("mpi");
  if (!dlsim::testing::mpirun_works(dir)) return;
  const std::string sweep = write_sweep(dir);
  const fs::path single = dir / "single", ranks = dir / "ranks";
  REQUIRE(run_in_process({"sweep", sweep, "-o", single.string(), "--quiet"}) == 0);
  std::string log;
  const int code = dlsim::testing::mpirun_sweep(sweep, ranks, 300, &log);
  INFO(log);
  REQUIRE(code == 0);
  CHECK(log.find("(rank 0 of 2)") != std::string::npos);
  CHECK(without_wall(read_text(ranks / "sweep.csv")) ==
        without_wall(read_text(single / "sweep.csv")));
}

TEST_CASE("tools/plot.py draws a real sweep's sweep.csv as PNG and SVG") {
  const fs::path dir = scratch("plot");
  const fs::path out = dir / "out";
  REQUIRE(run_in_process({"sweep", write_sweep(dir), "-o", out.string(), "--quiet"}) == 0);
  const std::string log = (dir / "plot.log").string();
  const int code = std::system(fmt::format("/usr/bin/python3 {}/tools/plot.py {} > {} 2>&1",
                                           DLSIM_SOURCE_DIR, out.string(), log)
                                   .c_str());
  INFO(read_text(log));
  REQUIRE(code == 0);
  for (const char* name : {"events_vs_accuracy.png", "events_vs_accuracy.svg"}) {
    CHECK(fs::file_size(out / "plots" / name) > 1000);
    CHECK(read_text(log).find(name) != std::string::npos);
  }
  CHECK(read_text(out / "plots" / "events_vs_accuracy.png").starts_with("\x89PNG"));
}

TEST_CASE("an interrupted sweep with checkpoints resumes its unfinished runs from them") {
  const fs::path dir = scratch("checkpoints");
  const std::string sweep = write_sweep(dir);
  const fs::path reference = dir / "reference", killed = dir / "killed";
  REQUIRE(run_in_process({"sweep", sweep, "-o", reference.string(), "--jobs", "1", "--quiet"}) ==
          0);
  const pid_t pid = spawn_sweep(sweep, killed, "1000");
  // Killed once a run in progress has written a checkpoint.
  auto checkpointed = [&] {
    std::vector<std::string> ids;
    if (!fs::exists(killed / "runs")) return ids;
    for (const fs::directory_entry& e : fs::directory_iterator(killed / "runs"))
      if (e.path().extension() == ".tmp" && fs::exists(e.path() / "checkpoint.bin"))
        ids.push_back(e.path().stem().string());
    return ids;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (checkpointed().empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const std::vector<std::string> interrupted = checkpointed();
  REQUIRE(interrupted.size() == 1);

  // The same binary: a checkpoint belongs to the build that wrote it.
  const std::string again = kDlsim + " sweep " + sweep + " -o " + killed.string() +
                            " --jobs 2 --quiet --checkpoint-every 1000 >/dev/null 2>&1";
  REQUIRE(std::system(again.c_str()) == 0);
  const auto summary = nlohmann::json::parse(
      read_text(killed / "runs" / interrupted.front() / "summary.json"));
  CHECK(summary["resumes"] == 1);  // continued, not started again
  CHECK(without_wall(read_text(killed / "sweep.csv")) ==
        without_wall(read_text(reference / "sweep.csv")));
}

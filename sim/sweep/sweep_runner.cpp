#include "sim/sweep/sweep_runner.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/metrics/output_folder.hpp"
#include "sim/metrics/run_scenario.hpp"

namespace dlsim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// A sweep may go into a new or empty folder, or into the folder of a sweep to resume.
void check_sweep_folder(const fs::path& out) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec))
    throw InputError(fmt::format("{}: exists and is not a folder; choose another (-o)",
                                 out.string()));
  if (fs::exists(out / "sweep.json") || fs::is_empty(out, ec)) return;
  throw InputError(fmt::format("{}: exists and is not a sweep's folder; choose another output "
                               "folder (-o)", out.string()));
}

void write_atomically(const fs::path& file, const std::string& text) {
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    if (!f) throw InputError(fmt::format("{}: write failed", tmp.string()));
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) throw InputError(fmt::format("{}: cannot write: {}", file.string(), ec.message()));
}

void prepare_sweep_folder(const SweepSpec& spec, const fs::path& out) {
  std::error_code ec;
  fs::create_directories(out / "runs", ec);
  if (ec)
    throw InputError(fmt::format("{}: cannot create the folder: {}", out.string(), ec.message()));
  json record;
  record["file"] = spec.file;
  record["base"] = spec.base;
  record["varied"] = spec.varied;
  record["runs"] = spec.runs.size();
  record["sweep"] = json::parse(spec.source.dump());
  write_atomically(out / "sweep.json", record.dump(2) + "\n");
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

// One line for the whole sweep: redrawn in place on a terminal, else a line per finished run.
class SweepProgress {
 public:
  SweepProgress(SweepProgressMode mode, size_t total, size_t reused, std::ostream& out)
      : mode_(mode), total_(total), done_(reused), reused_(reused), out_(out) {}

  void finished(const std::string& id, const std::string& status, unsigned running) {
    ++done_;
    ++ran_;
    if (status == "failed") ++failed_;
    if (mode_ == SweepProgressMode::kQuiet) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double eta = elapsed / static_cast<double>(ran_) * static_cast<double>(total_ - done_);
    const std::string line = fmt::format(
        "sweep {}/{} runs ({} reused, {} failed), running {}, elapsed {}, ETA {}  [{} {}]", done_,
        total_, reused_, failed_, running, clock_text(elapsed), clock_text(eta), id, status);
    if (mode_ == SweepProgressMode::kLine)
      out_ << "\r\033[K" << line << std::flush;
    else
      out_ << line << '\n';
  }

  void finish() {
    if (mode_ == SweepProgressMode::kLine && ran_ > 0) out_ << '\n';
  }

 private:
  SweepProgressMode mode_;
  size_t total_, done_, reused_, ran_ = 0, failed_ = 0;
  std::ostream& out_;
  Clock::time_point start_ = Clock::now();
};

// A run that could not finish leaves its scenario and the reason, so sweep.csv can say
// "failed" and the next start of the sweep tries it again.
void record_failure(const fs::path& folder, const SweepRun& run, const std::string& error) {
  OutputFolder record(folder);
  record.write_text("scenario.json", run.resolved.dump(2) + "\n");
  json summary;
  summary["status"] = "failed";
  summary["error"] = error;
  record.write_text("summary.json", summary.dump(2) + "\n");
  record.commit();
}

// Runs one run to OUT/runs/<id>; returns its status.
std::string run_one(const SweepRun& run, const SweepOptions& options, std::string& error) {
  const fs::path folder = options.out / "runs" / run.id;
  RunOptions run_options;
  run_options.out = folder;
  run_options.threads = 1;
  run_options.data_paths = options.data_paths;
  run_options.progress = ProgressMode::kQuiet;
  std::ostringstream run_log;  // warnings and divergence are in the run's summary.json
  try {
    const RunReport report = run_scenario(run.scenario, run_options, run_log);
    return report.summary.value("status", "ok");
  } catch (const std::exception& e) {
    error = e.what();
  }
  try {
    record_failure(folder, run, error);
  } catch (const std::exception& e) {
    error += fmt::format(" (and the failure could not be recorded: {})", e.what());
  }
  return "failed";
}

}  // namespace

SweepReport run_sweep(const SweepSpec& spec, const SweepOptions& options, RankGroup& ranks,
                      std::ostream& log) {
  // Every rank checks before any writes, so all see the same folder and fail alike.
  check_sweep_folder(options.out);
  ranks.barrier();
  bool ready = true;
  std::string why;
  if (ranks.rank() == 0) {
    try {
      prepare_sweep_folder(spec, options.out);
    } catch (const InputError& e) {
      ready = false;
      why = e.what();
    }
  }
  if (!ranks.all(ready))
    throw InputError(why.empty() ? fmt::format("{}: rank 0 could not prepare the sweep folder",
                                               options.out.string())
                                 : why);

  SweepReport report;
  report.runs = spec.runs.size();
  std::vector<const SweepRun*> todo;
  for (size_t i = ranks.rank(); i < spec.runs.size(); i += ranks.size()) {
    const SweepRun& run = spec.runs[i];
    if (finished_summary(options.out / "runs" / run.id, run).is_null())
      todo.push_back(&run);
    else
      ++report.reused;
  }

  const size_t share = todo.size() + report.reused;
  SweepProgress progress(options.progress, share, report.reused, log);
  std::atomic<size_t> next{0};
  std::atomic<unsigned> running{0};
  std::mutex report_mutex;
  auto worker = [&] {
    for (size_t i = next++; i < todo.size(); i = next++) {
      ++running;
      std::string error;
      const std::string status = run_one(*todo[i], options, error);
      const unsigned still = --running;
      const std::lock_guard lock(report_mutex);
      ++report.ran;
      if (!error.empty()) log << fmt::format("\ndlsim: sweep: run {} failed: {}\n", todo[i]->id, error);
      progress.finished(todo[i]->id, status, still);
    }
  };
  const unsigned jobs = std::max(1u, std::min<unsigned>(options.jobs,
                                                        static_cast<unsigned>(todo.size())));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  progress.finish();

  ranks.barrier();  // every rank's runs are in place before the table is read
  if (ranks.rank() == 0) {
    report.counts = write_sweep_csv(spec, options.out);
    report.csv = options.out / "sweep.csv";
  }
  return report;
}

}  // namespace dlsim

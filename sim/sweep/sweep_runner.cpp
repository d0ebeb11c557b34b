#include "sim/sweep/sweep_runner.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/metrics/output_folder.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/sweep/sweep_folder.hpp"

namespace dlsim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Runs `step` where `ranks` say (rank 0 only, or every rank), then agrees: an input or environment
// error on any rank stops every rank at the same point (with its message where it happened), so
// no rank is left waiting in a barrier the others never reach.
void agreed(RankGroup& ranks, bool every_rank, const std::function<void()>& step,
            const fs::path& out) {
  std::string error;
  bool environment = false;  // the error was the machine's (EnvironmentError), not the input's
  if (every_rank || ranks.rank() == 0) {
    try {
      step();
    } catch (const InputError& e) {
      error = e.what();
    } catch (const EnvironmentError& e) {
      error = e.what();
      environment = true;
    }
  }
  if (ranks.all(error.empty())) return;
  if (environment) throw EnvironmentError(error);
  throw InputError(error.empty() ? fmt::format("{}: another rank of the sweep failed; see its "
                                               "message", out.string())
                                 : error);
}

// An exclusive lock on OUT/.lock while a sweep writes into OUT: a second sweep started on the
// same folder would delete the first one's half-written runs.
class FolderLock {
 public:
  explicit FolderLock(const fs::path& out) {
    const fs::path file = out / kSweepLockFile;
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw EnvironmentError(fmt::format("{}: cannot create the lock file: {}", file.string(),
                                         std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw InputError(fmt::format("{}: another dlsim sweep is writing into this folder",
                                   out.string()));
    }
  }
  ~FolderLock() { ::close(fd_); }  // closing releases the lock
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

// One line for the whole sweep: redrawn in place on a terminal, else a line per finished run.
class SweepProgress {
 public:
  SweepProgress(SweepProgressMode mode, std::string label, size_t total, size_t reused,
                std::ostream& out)
      : mode_(mode), label_(std::move(label)), total_(total), done_(reused), reused_(reused),
        out_(out) {}

  void finished(const std::string& id, const std::string& status, unsigned running) {
    ++done_;
    ++ran_;
    if (status == "failed") ++failed_;
    if (mode_ == SweepProgressMode::kQuiet) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double eta = elapsed / static_cast<double>(ran_) * static_cast<double>(total_ - done_);
    show(fmt::format("{} {}/{} runs ({} reused, {} failed), running {}, elapsed {}, ETA {}  "
                     "[{} {}]",
                     label_, done_, total_, reused_, failed_, running, clock_text(elapsed),
                     clock_text(eta), id, status),
         false);
  }

  /// A line that stays (a failure), whatever the mode.
  void note(const std::string& line) { show(line, true); }

  void finish() {
    if (mode_ == SweepProgressMode::kLine && ran_ > 0) out_ << '\n';
  }

 private:
  void show(const std::string& line, bool keep) {
    if (mode_ == SweepProgressMode::kLine)
      out_ << "\r\033[K" << line << (keep ? "\n" : "") << std::flush;
    else if (mode_ == SweepProgressMode::kLines || keep)
      out_ << line << '\n';
  }

  SweepProgressMode mode_;
  std::string label_;
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

// Runs one run to OUT/runs/<id>; returns its status ("ok", "diverged" or "failed").
std::string run_one(const SweepRun& run, const SweepOptions& options, std::string& error) {
  const fs::path folder = options.out / "runs" / run.id;
  RunOptions run_options;
  run_options.out = folder;
  run_options.threads = 1;
  run_options.data_paths = options.data_paths;
  run_options.progress = ProgressMode::kQuiet;
  run_options.checkpoints = options.checkpoints;
  run_options.between_iterations = options.between_iterations;
  std::ostringstream run_log;  // warnings and divergence are in the run's summary.json
  try {
    const RunReport report = run_scenario(run.scenario, run_options, run_log);
    return report.summary.value("status", "ok");
  } catch (const Cancelled&) {
    throw;  // not the run's failure: nothing is recorded
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

// A run's status as it travels to rank 0 (FinishedRun::outcome).
constexpr const char* kStatuses[] = {"ok", "diverged", "failed"};

int outcome_of(const std::string& status) {
  for (int i = 0; i < 3; ++i)
    if (status == kStatuses[i]) return i;
  return 2;
}

// Runs what `take` hands out with `jobs` threads, each run single-threaded. `mutex` guards
// `progress` and `report`, which rank 0's dealer updates too.
void run_all(const SweepSpec& spec, const TakeRun& take, const SweepOptions& options,
             SweepProgress& progress, SweepReport& report, std::mutex& mutex,
             std::atomic<unsigned>& running) {
  std::atomic<bool> stop{false};
  std::exception_ptr cancelled;  // under mutex
  auto worker = [&] {
    std::optional<FinishedRun> previous;
    while (!stop) {
      const std::optional<size_t> i = take(previous);
      if (!i) return;
      const SweepRun& run = spec.runs.at(*i);  // rank 0 dealt it from the same sweep
      ++running;
      std::string error;
      std::string status;
      try {
        status = run_one(run, options, error);
      } catch (const Cancelled&) {
        stop = true;  // start no other run here
        --running;
        const std::lock_guard lock(mutex);
        if (!cancelled) cancelled = std::current_exception();
        return;
      }
      previous = FinishedRun{*i, outcome_of(status)};
      const unsigned still = --running;
      const std::lock_guard lock(mutex);
      ++report.ran;
      if (!error.empty())
        progress.note(fmt::format("dlsim: sweep: run {} failed: {}", run.id, error));
      progress.finished(run.id, status, still);
    }
  };
  const unsigned jobs = std::max(1u, options.jobs);
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (cancelled) std::rethrow_exception(cancelled);
}

}  // namespace

SweepReport run_sweep(const SweepSpec& spec, const SweepOptions& options, RankGroup& ranks,
                      std::ostream& log) {
  // Every rank checks before rank 0 writes anything, so all see the same folder.
  agreed(ranks, true, [&] { check_sweep_folder(options.out); }, options.out);
  std::unique_ptr<FolderLock> lock;
  agreed(ranks, false, [&] {
    create_sweep_folder(options.out);
    lock = std::make_unique<FolderLock>(options.out);
    prepare_sweep_folder(spec, options.out);
  }, options.out);

  // Rank 0 alone decides what is missing and deals it, in the sweep's order, to whichever rank
  // is free first: a sweep of uneven runs ends near its longest run, not at the end of the
  // unluckiest rank's fixed share. Which rank ran a run changes nothing in its folder.
  SweepReport report;
  report.runs = spec.runs.size();
  std::vector<size_t> todo;
  if (ranks.rank() == 0)
    for (size_t i = 0; i < spec.runs.size(); ++i) {
      if (finished_summary(options.out / "runs" / spec.runs[i].id, spec.runs[i]).is_null())
        todo.push_back(i);
      else
        ++report.reused;
    }
  const std::string label =
      ranks.size() > 1 ? fmt::format("rank {} of {}: sweep", ranks.rank(), ranks.size()) : "sweep";
  SweepProgress progress(options.progress, label, todo.size() + report.reused, report.reused, log);
  std::mutex mutex;
  std::atomic<unsigned> running{0};
  std::exception_ptr failure;  // a Cancelled run, or what the machine refused (threads, memory)
  try {
    ranks.deal(
        todo,
        [&](const TakeRun& take) {
          run_all(spec, take, options, progress, report, mutex, running);
        },
        [&](const FinishedRun& run) {  // on rank 0: another rank's run
          const std::lock_guard lock(mutex);
          ++report.ran;
          progress.finished(spec.runs.at(run.index).id,
                            kStatuses[run.outcome >= 0 && run.outcome < 3 ? run.outcome : 2],
                            running);
        });
  } catch (...) {
    failure = std::current_exception();
  }
  progress.finish();  // before the error, if any

  // Every rank's runs are in place before the table is read; a rank whose work threw stops the
  // others here too, rather than leaving them waiting for it.
  const bool every_rank_ok = ranks.all(!failure);
  if (failure) std::rethrow_exception(failure);
  if (!every_rank_ok)
    throw EnvironmentError(
        fmt::format("{}: another rank of the sweep stopped; see its message", options.out.string()));
  if (ranks.rank() == 0) {
    report.counts = write_sweep_csv(spec, options.out);
    report.csv = options.out / "sweep.csv";
  }
  return report;
}

}  // namespace dlsim

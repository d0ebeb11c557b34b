#include "sim/cli/sweep_command.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace dlsim::cli {
namespace {

namespace fs = std::filesystem;

struct SweepCommandOptions {
  std::string sweep;
  std::string out;    // empty: sweeps/<sweep file's name>
  unsigned jobs = 0;  // 0: all cores in one process, one per rank under MPI
  bool quiet = false;
  bool list = false;  // print the runs and stop
  std::optional<std::string> data_dir;
  std::string checkpoint_every;  // empty: none
};

// `--list`: the expansion, validated, one line per run; nothing is written.
void list_runs(const SweepSpec& spec, std::ostream& out) {
  for (const SweepRun& run : spec.runs) {
    std::string values;
    for (size_t i = 0; i < spec.varied.size(); ++i)
      values += fmt::format("  {}={}", spec.varied[i], run.values[i].dump());
    out << run.id << values << '\n';
  }
  out << fmt::format("{} runs\n", spec.runs.size());
}

// The cores this process may use (its affinity mask: under srun -c 4, four), not the machine's.
unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Every rank reads the sweep file; if one cannot (a file missing on its node), all stop.
SweepSpec load_on_every_rank(const std::string& file, RankGroup& ranks) {
  std::optional<SweepSpec> spec;
  std::string error;
  try {
    spec = load_sweep(file);
  } catch (const InputError& e) {
    error = e.what();
  }
  if (ranks.all(spec.has_value())) return std::move(*spec);
  throw InputError(error.empty() ? fmt::format("{}: another rank could not read it", file) : error);
}

void run_sweep_command(const SweepCommandOptions& o, std::ostream& out, std::ostream& err) {
  // Joined first and left last: under mpirun, MPI_Finalize runs even when the sweep is bad.
  const std::unique_ptr<RankGroup> ranks = join_rank_group();
  const SweepSpec spec = load_on_every_rank(o.sweep, *ranks);
  if (o.list) {
    if (ranks->rank() == 0) list_runs(spec, out);
    return;
  }
  SweepOptions options;
  options.out = o.out.empty() ? fs::path("sweeps") / fs::path(o.sweep).stem() : fs::path(o.out);
  options.jobs = o.jobs > 0 ? o.jobs : (ranks->size() > 1 ? 1 : usable_cores());
  options.data_paths = models::resolve_data_paths(
      o.data_dir ? std::optional<fs::path>(*o.data_dir) : std::nullopt);
  if (!o.checkpoint_every.empty())
    options.checkpoints = parse_checkpoint_every(o.checkpoint_every);
  const bool leader = ranks->rank() == 0;
  options.progress = o.quiet || !leader ? SweepProgressMode::kQuiet
                     : isatty(STDERR_FILENO) ? SweepProgressMode::kLine
                                             : SweepProgressMode::kLines;
  const SweepReport report = run_sweep(spec, options, *ranks, err);
  if (!leader) return;
  const SweepCounts& c = report.counts;
  out << fmt::format("sweep        {} runs: {} ok, {} diverged, {} failed, {} missing\n",
                     report.runs, c.ok, c.diverged, c.failed, c.missing);
  out << fmt::format("this start   ran {}, reused {} finished before{}\n", report.ran,
                     report.reused,
                     ranks->size() > 1 ? fmt::format(" (rank 0 of {})", ranks->size()) : "");
  out << fmt::format("table        {}\n", report.csv.string());
  if (c.failed + c.missing > 0)
    throw SweepIncomplete(fmt::format(
        "{} runs failed, {} are missing{}; start the same command again to retry them",
        c.failed, c.missing,
        c.missing > 0 && ranks->size() > 1 ? " (is the output folder on a filesystem every "
                                             "rank sees?)"
                                           : ""));
}

}  // namespace

void add_sweep_command(CLI::App& app, std::ostream& out, std::ostream& err) {
  auto options = std::make_shared<SweepCommandOptions>();
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run a scenario's variations (grid, zip, seeds); resumable; shares runs among "
               "MPI ranks under mpirun");
  sweep->add_option("sweep", options->sweep, "Sweep file")->required();
  sweep->add_option("-o,--out", options->out, "Output folder (default: sweeps/<sweep name>)");
  sweep->add_option("--jobs", options->jobs,
                    "Runs at once, one thread each (default: all cores; 1 per MPI rank)");
  sweep->add_flag("--quiet", options->quiet, "No progress output");
  sweep->add_flag("--list", options->list, "Validate the sweep, print its runs, run nothing");
  sweep->add_option("--checkpoint-every", options->checkpoint_every,
                    "Each run writes a checkpoint every N iterations or DURATION of wall time; "
                    "an interrupted sweep started again resumes its runs from them");
  sweep->add_option("--data-dir", options->data_dir, "Data folder (default: $DLSIM_DATA, else data/)");
  sweep->callback([options, &out, &err] { run_sweep_command(*options, out, err); });
}

}  // namespace dlsim::cli

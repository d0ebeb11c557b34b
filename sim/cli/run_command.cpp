#include "sim/cli/run_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include "sim/cli/app.hpp"
#include "sim/distributed/run_ranks.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/run/virtual_ranks.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/run_plan.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim::cli {

namespace fs = std::filesystem;

std::string default_scenario_path() {
  const fs::path local = "scenarios/default.json";
  if (fs::exists(local)) return local.string();
  return (fs::path(DLSIM_SOURCE_DIR) / local).string();
}

namespace {

models::DataPaths data_paths(const RunCommandOptions& o) {
  return models::resolve_data_paths(o.data_dir ? std::optional<fs::path>(*o.data_dir)
                                               : std::nullopt);
}

std::string scenario_path(const RunCommandOptions& o) {
  return o.scenario.empty() ? default_scenario_path() : o.scenario;
}

void print_result(const nlohmann::json& s, std::ostream& out) {
  out << fmt::format("status       {}\n", s.at("status").get<std::string>());
  if (s.contains("final")) {
    const auto& f = s.at("final");
    if (f.contains("accuracy_mean") && !f.at("accuracy_mean").is_null())
      out << fmt::format("accuracy     mean {:.4f}  min {:.4f}  max {:.4f}  averaged model {:.4f}\n",
                         f.at("accuracy_mean").get<double>(), f.at("accuracy_min").get<double>(),
                         f.at("accuracy_max").get<double>(),
                         f.value("accuracy_aggregate", nlohmann::json(0.0)).get<double>());
    if (f.contains("accuracy_center") && f.at("accuracy_center").is_number())
      out << fmt::format("centre z     accuracy {:.4f}\n", f.at("accuracy_center").get<double>());
    if (f.contains("distance_to_optimum") && !f.at("distance_to_optimum").is_null())
      out << fmt::format("distance     {:.6g} to the optimum (mean over agents)\n",
                         f.at("distance_to_optimum").get<double>());
  }
  const auto& c = s.at("comm");
  out << fmt::format("events       {}  (savings {:.1f} % against every iteration)\n",
                     c.at("events").get<uint64_t>(), 100 * c.at("savings").get<double>());
  out << fmt::format("messages     {}  bytes {}\n", c.at("messages").get<uint64_t>(),
                     c.at("bytes").get<uint64_t>());
  const auto& t = s.at("time");
  out << fmt::format("time         simulated {:.3f} s, wall {:.2f} s\n",
                     t.at("simulated_s").get<double>(), t.at("wall_s").get<double>());
  out << fmt::format("fingerprint  {}\n", s.at("fingerprint").get<std::string>());
}

}  // namespace

// --resume OUT.tmp: the interrupted run's own resolved scenario and output folder.
fs::path resumed_run(const RunCommandOptions& o) {
  const fs::path staged = fs::path(o.resume).lexically_normal();
  const std::string name = staged.has_filename() ? staged.string() : staged.parent_path().string();
  if (!name.ends_with(".tmp") || checkpoint_ranks(name) == 0)
    throw InputError(fmt::format("--resume: {}: not the folder of an interrupted run (OUT.tmp, "
                                 "holding {})",
                                 o.resume, kCheckpointName));
  if (!o.scenario.empty() || !o.overrides.empty() || !o.out.empty())
    throw InputError("--resume: the scenario and the output folder come from the checkpoint's "
                     "folder: give no scenario, -o or --set with it");
  return name.substr(0, name.size() - 4);
}

namespace {

// DLSIM_ROUND_BYTES: the size of a window's shipping rounds over MPI ranks (docs/
// partitioned-runs.md, "Slice (d)"), for tests that need windows of several rounds; unset: the
// default.
size_t round_bytes_from_environment() {
  const char* value = std::getenv("DLSIM_ROUND_BYTES");
  if (value == nullptr) return 0;
  const std::string text(value);
  size_t bytes = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (error != std::errc{} || end != text.data() + text.size() || bytes == 0)
    throw InputError(
        fmt::format("DLSIM_ROUND_BYTES: \"{}\" is not a positive number of bytes", text));
  return bytes;
}

void run_here(const RunCommandOptions& o, std::ostream& out, std::ostream& err,
              RankCollectives* ranks) {
  const std::optional<fs::path> resume =
      o.resume.empty() ? std::nullopt : std::optional<fs::path>(resumed_run(o));
  const ScenarioSpec spec =
      resume ? load_scenario((fs::path(resume->string() + ".tmp") / "scenario.json").string(), {})
             : load_scenario(scenario_path(o), o.overrides);
  RunOptions options;
  options.out = resume ? *resume : o.out.empty() ? fs::path("runs") / spec.name : fs::path(o.out);
  if (!o.checkpoint_every.empty()) options.checkpoints = parse_checkpoint_every(o.checkpoint_every);
  options.threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  options.virtual_ranks = o.virtual_ranks;
  options.data_paths = data_paths(o);
  options.progress = o.quiet ? ProgressMode::kQuiet
                             : (isatty(STDERR_FILENO) ? ProgressMode::kBar : ProgressMode::kLines);
  options.ranks = ranks;
  options.shipping_round_bytes = round_bytes_from_environment();
  const RunReport report = run_scenario(spec, options, err);
  if (!report.summary.is_null()) {  // over MPI ranks, rank 0 alone reports
    print_result(report.summary, out);
    out << fmt::format("results      {}\n", report.out.string());
  }
  if (!report.ok) throw RunDiverged("diverged");  // where: on `err` already
}

}  // namespace

// Under `mpirun -np R` (R > 1) the ranks run one simulation together (docs/partitioned-runs.md).
void run_run(const RunCommandOptions& o, std::ostream& out, std::ostream& err) {
  const std::unique_ptr<RunRanks> joined = join_run_ranks();
  if (!joined) return run_here(o, out, err, nullptr);
  try {
    run_here(o, out, err, &joined->collectives());
  } catch (const RunDiverged&) {
    throw;  // every rank learnt it together: each exits 3
  } catch (const OtherRankFailed&) {
    // The rank that failed says why and ends the job with its exit code: wait for it.
    std::this_thread::sleep_for(std::chrono::seconds(10));
    const int code = report_failure(std::current_exception(), err);
    err.flush();
    joined->abort(code);
  } catch (...) {
    // The others may wait for this rank in a collective: the job ends here, with this exit code.
    // A failure that every rank meets (bad input) is said once, by rank 0, whose abort ends the
    // others during their pause; one that only another rank meets is said after it.
    if (joined->collectives().rank() != 0) std::this_thread::sleep_for(std::chrono::seconds(1));
    const int code = report_failure(std::current_exception(), err);
    err.flush();
    joined->abort(code);
  }
}

void run_validate(const RunCommandOptions& o, std::ostream& out, std::ostream& err) {
  const std::string path = scenario_path(o);
  const ScenarioSpec spec = load_scenario(path, o.overrides);
  const uint32_t ranks = o.validate_ranks;
  if (ranks > 1) refuse_partitioning(spec, running_agents(spec), ranks, PartitionsRun::kOverRanks);
  // Refuses what cannot fit, before anything large is built. Over R ranks: rank 0's plan, whose
  // block is the largest.
  RunPlan plan = ranks > 1 ? plan_run(spec, ranks, 0) : plan_run(spec);
  const MemoryEstimate memory = plan.memory;
  // Everything a run (over ranks: rank 0) would build before its first step: graph, data,
  // shards, models.
  const std::unique_ptr<World> world = build_world(spec, std::move(plan), data_paths(o));
  if (ranks > 1) plan_partitions(*world, ranks, PartitionsRun::kOverRanks);  // the lookahead
  for (const std::string& w : world->warnings) err << "dlsim: warning: " << w << '\n';
  out << fmt::format("{}: ok ({}, {} agents, {} parameters each)\n", path, spec.name,
                     spec.agents, world->parameter_count());
  if (ranks > 1)
    out << fmt::format(
        "memory: estimated {} per rank over {} MPI ranks (the largest share: {} "
        "agents)\n",
        format_bytes(memory.total_bytes()), ranks, world->held.size());
  else
    out << fmt::format("memory: estimated {}\n", format_bytes(memory.total_bytes()));
  for (const MemoryPart& p : memory.parts)
    out << fmt::format("  {:<8} {:>10}  {}\n", p.name, format_bytes(p.bytes), p.detail);
}

void add_run_commands(CLI::App& app, std::ostream& out, std::ostream& err) {
  auto options = std::make_shared<RunCommandOptions>();
  CLI::App* run = app.add_subcommand("run", "Simulate a scenario and write its results");
  run->add_option("scenario", options->scenario, "Scenario file (default: scenarios/default.json)");
  run->add_option("-o,--out", options->out, "Output folder (default: runs/<name>)");
  run->add_option("--set", options->overrides, "Override a key: /json/pointer=VALUE (repeatable)");
  run->add_option("--threads", options->threads, "Threads for the agents' work (default: all cores)");
  run->add_flag("--quiet", options->quiet, "No progress output");
  run->add_option("--virtual-ranks", options->virtual_ranks,
                  "Run the agents as R partitions in windows, as R MPI ranks would, in this "
                  "process: the results must not change (docs/partitioned-runs.md)")
      ->check(CLI::PositiveNumber);
  run->add_option("--data-dir", options->data_dir, "Data folder (default: $DLSIM_DATA, else data/)");
  run->add_option("--checkpoint-every", options->checkpoint_every,
                  "Write a checkpoint into OUT.tmp every N iterations or every DURATION of wall "
                  "time (90s, 10min, 2h); a run whose OUT.tmp holds one continues from it");
  run->add_option("--resume", options->resume,
                  "Continue the interrupted run in OUT.tmp (its scenario and output folder)");
  run->callback([options, &out, &err] { run_run(*options, out, err); });

  CLI::App* validate = app.add_subcommand("validate", "Check a scenario without running it");
  validate->add_option("scenario", options->scenario, "Scenario file")->required();
  validate->add_option("--set", options->overrides, "Override a key: /json/pointer=VALUE");
  validate->add_option("--data-dir", options->data_dir, "Data folder");
  validate
      ->add_option("--ranks", options->validate_ranks,
                   "Check it as a run over R MPI ranks would: what they refuse, and the "
                   "memory of the largest rank's share")
      ->check(CLI::PositiveNumber);
  validate->callback([options, &out, &err] { run_validate(*options, out, err); });
}

}  // namespace dlsim::cli

// dlsim._core: the compiled half of the Python module (python/dlsim/__init__.py is the other).
// A thin layer over sim/run and sim/sweep, as the CLI is: it loads a scenario (a file, or JSON
// text from a dict), runs it into an output folder with the GIL released, and maps errors to
// Python exceptions. Reading the folder back (metrics, summary) is the Python half's job.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "python/interrupts.hpp"
#include "python/python_stderr.hpp"
#include "python/python_trigger.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/output_folder.hpp"
#include "sim/run/checkpoint.hpp"
#include "sim/run/run_scenario.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/run_plan.hpp"
#include "sim/scenario/world.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace dlsim::python {
namespace {

namespace py = pybind11;
namespace fs = std::filesystem;
using Overrides = std::vector<std::string>;

// A scenario file (`path`), or a scenario's JSON text (`text`, errors name `label` as the file),
// with --set style overrides.
ScenarioSpec load(const std::optional<std::string>& path, const std::optional<std::string>& text,
                  const std::string& label, const Overrides& overrides) {
  if (path) return load_scenario(*path, overrides);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.value());
  } catch (const nlohmann::json::exception& e) {  // the dict held something JSON cannot
    throw InputError(fmt::format("{}: not JSON: {}", label, e.what()));
  }
  for (const std::string& o : overrides) apply_override(j, o);
  return parse_scenario(j, label);
}

models::DataPaths data_paths(const std::optional<std::string>& data_dir) {
  return models::resolve_data_paths(data_dir ? std::optional<fs::path>(*data_dir) : std::nullopt);
}

unsigned all_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// The resolved scenario as JSON text (what scenario.json of a run holds); InputError when bad.
std::string validate(const std::optional<std::string>& path,
                     const std::optional<std::string>& text, const std::string& label,
                     const Overrides& overrides, const std::optional<std::string>& data_dir) {
  const ScenarioSpec spec = load(path, text, label, overrides);
  std::string resolved;
  {
    py::gil_scoped_release release;  // loading the data can take seconds
    const std::unique_ptr<World> world = build_world(spec, plan_run(spec), data_paths(data_dir));
    resolved = scenario_to_json(spec).dump();
  }
  return resolved;
}

// Runs into `out`, returns summary.json's text. A Python error (Ctrl-C, the trigger's) is
// raised as itself once the run has removed its OUT.tmp.
std::string run(const std::optional<std::string>& path, const std::optional<std::string>& text,
                const std::string& label, const Overrides& overrides, const std::string& out,
                unsigned threads, bool progress, const std::optional<py::function>& trigger,
                const std::optional<std::string>& data_dir) {
  const ScenarioSpec spec = load(path, text, label, overrides);
  // A checkpoint's identity does not cover a Python rule: continuing one under another rule
  // would mix two runs in one result.
  const fs::path checkpoint = OutputFolder::staging_path(out) / kCheckpointName;
  if (trigger && fs::exists(checkpoint))
    throw InputError(fmt::format("{}: holds a checkpoint of an interrupted run; a run with a "
                                 "Python trigger does not continue one (remove it, or run "
                                 "without trigger= to continue it)",
                                 checkpoint.parent_path().string()));
  Interrupts interrupts;
  std::unique_ptr<PythonTrigger> decider;
  if (trigger)
    decider = std::make_unique<PythonTrigger>(
        *trigger, spec.agents,
        spec.time.mode == TimeMode::kSync ? CallOrder::kAgentOrder : CallOrder::kAsCalled,
        interrupts);
  RunOptions options;
  options.out = out;
  options.threads = threads > 0 ? threads : all_cores();
  options.data_paths = data_paths(data_dir);
  options.progress = progress ? ProgressMode::kLines : ProgressMode::kQuiet;
  options.between_iterations = [&interrupts] { interrupts.check(); };
  options.trigger = decider.get();
  PythonStderr log;
  std::string summary;
  try {
    py::gil_scoped_release release;
    summary = run_scenario(spec, options, log.stream()).summary.dump();
  } catch (const Cancelled&) {
    interrupts.rethrow();
    throw;
  }
  return summary;
}

// Runs a sweep file into `out` as `dlsim sweep` does; returns the path of sweep.csv.
std::string sweep(const std::string& file, const std::string& out, unsigned jobs, bool progress,
                  const std::optional<std::string>& data_dir) {
  const SweepSpec spec = load_sweep(file);
  Interrupts interrupts;
  SweepOptions options;
  options.out = out;
  options.jobs = jobs > 0 ? jobs : all_cores();
  options.data_paths = data_paths(data_dir);
  options.progress = progress ? SweepProgressMode::kLines : SweepProgressMode::kQuiet;
  options.between_iterations = [&interrupts] { interrupts.check(); };
  PythonStderr log;
  SingleProcess ranks;
  std::string csv;
  try {
    interrupts.run_watched([&] { csv = run_sweep(spec, options, ranks, log.stream()).csv.string(); });
  } catch (const Cancelled&) {
    interrupts.rethrow();
    throw;
  }
  return csv;
}

}  // namespace
}  // namespace dlsim::python

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  using namespace dlsim::python;
  m.doc() = "dlsim's engine (use the dlsim package, not this module)";
  // InputError's message is the CLI's line without its "dlsim: " prefix; the package turns it
  // into ScenarioError. EnvironmentError is the machine's (exit 5 at the CLI).
  static py::exception<dlsim::InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<dlsim::EnvironmentError> environment_error(m, "EnvironmentError",
                                                                  PyExc_OSError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dlsim::InputError& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    } catch (const dlsim::EnvironmentError& e) {
      PyErr_SetString(environment_error.ptr(), e.what());
    } catch (const dlsim::Cancelled& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });
  m.def("validate", &validate, py::arg("path"), py::arg("text"), py::arg("label"),
        py::arg("overrides"), py::arg("data_dir"));
  m.def("run", &run, py::arg("path"), py::arg("text"), py::arg("label"), py::arg("overrides"),
        py::arg("out"), py::arg("threads"), py::arg("progress"), py::arg("trigger"),
        py::arg("data_dir"));
  m.def("sweep", &sweep, py::arg("file"), py::arg("out"), py::arg("jobs"), py::arg("progress"),
        py::arg("data_dir"));
}

#include "sim/cli/app.hpp"

#include <CLI/CLI.hpp>
#include <exception>

#include "sim/cli/algorithms_command.hpp"
#include "sim/cli/run_command.hpp"
#include "sim/cli/sweep_command.hpp"
#include "sim/cli/topology_command.hpp"
#include "sim/core/build_info.hpp"
#include "sim/core/error.hpp"

namespace dlsim::cli {
namespace {

void add_commands(CLI::App& app, std::ostream& out, std::ostream& err) {
  add_topology_command(app, out);
  add_run_commands(app, out, err);
  add_sweep_command(app, out, err);
  add_algorithms_command(app, out);
  app.add_subcommand("version", "Print the version and the build key of golden fingerprints")
      ->callback([&out] { out << "dlsim 0.1.0\nbuild: " << build_key() << "\n"; });
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app(
      "dlsim: a discrete-event simulator for communication-efficient decentralized "
      "deep learning",
      "dlsim");
  app.require_subcommand(1);
  try {
    add_commands(app, out, err);
    app.parse(argc, argv);
    return kExitOk;
  } catch (const CLI::Success& e) {  // --help: usage on `out`, exit 0
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "dlsim: " << e.what() << " (see dlsim --help)\n";
    return kExitBadInput;
  } catch (...) {
    return report_failure(std::current_exception(), err);
  }
}

int report_failure(std::exception_ptr failure, std::ostream& err) {
  try {
    std::rethrow_exception(failure);
  } catch (const RunDiverged&) {  // the run already said where, on `err`
    return kExitDiverged;
  } catch (const SweepIncomplete& e) {  // the table is written; say what is not in it
    err << "dlsim: sweep: " << e.what() << "\n";
    return kExitIncomplete;
  } catch (const InputError& e) {
    err << "dlsim: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const EnvironmentError& e) {
    err << "dlsim: " << e.what() << "\n";
    return kExitEnvironment;
  } catch (const std::exception& e) {
    err << "dlsim: internal error: " << e.what() << "\n";
    return kExitInternalError;
  } catch (...) {
    err << "dlsim: internal error: unknown exception\n";
    return kExitInternalError;
  }
}

}  // namespace dlsim::cli

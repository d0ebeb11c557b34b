// The dlsim command line: builds the CLI11 app with one subcommand per command module, parses,
// runs, and maps every failure to an exit code and one line on the error stream.
#pragma once

#include <exception>
#include <ostream>

namespace dlsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternalError = 1;  // a bug: anything but bad input
inline constexpr int kExitBadInput = 2;       // InputError or a command-line parse error
inline constexpr int kExitDiverged = 3;       // `run`: the run diverged (its folder is written)
inline constexpr int kExitIncomplete = 4;     // `sweep`: some runs failed or are missing
inline constexpr int kExitEnvironment = 5;    // EnvironmentError: cannot write (disk full, ...)

/// Runs `dlsim argv[1..]`: results go to `out`, errors to `err` as one line "dlsim: ...".
/// Never throws. Returns the process exit code.
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

/// A command's failure as run_cli reports it: its line on `err` (none for a diverged run, which
/// said where already) and the exit code.
int report_failure(std::exception_ptr failure, std::ostream& err);

}  // namespace dlsim::cli

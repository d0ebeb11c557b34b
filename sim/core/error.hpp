// The two kinds of failure: bad input from a user (InputError, exit 2 at the CLI) and a broken
// invariant inside dlsim (InvariantError via DLSIM_CHECK, exit 1). Library code never exits.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace dlsim {

/// A scenario, data file or command line that dlsim cannot accept. what() is one line that names
/// the file and the JSON pointer, line or byte offset.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The machine, not the input: a folder that cannot be created, a file that cannot be written (a
/// full disk, a read-only folder). what() is one line naming the path and the system's reason.
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The caller asked a run to stop (RunOptions::between_iterations threw it: the Python module's
/// KeyboardInterrupt). Neither the input's fault nor the machine's; sweeps do not record it as a
/// failed run but stop.
class Cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A bug: a condition that must hold whatever the input. Carries file, line, time and agent.
class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// What the current thread is simulating, so that a failed check can say when and where.
/// Set by the simulator around each event; -1 means unknown.
struct CheckContext {
  int64_t time_ns = -1;
  int64_t agent = -1;
};
CheckContext& current_check_context();

[[noreturn]] void check_failed(const char* file, int line, const char* condition,
                               const std::string& message);

}  // namespace dlsim

/// Always-on invariant check: throws InvariantError naming file, line, simulated time and agent.
#define DLSIM_CHECK(cond, ...)                                                  \
  do {                                                                          \
    if (!(cond)) [[unlikely]]                                                   \
      ::dlsim::check_failed(__FILE__, __LINE__, #cond, fmt::format(__VA_ARGS__)); \
  } while (0)

// summary.json: the headline numbers of a run (README.md, "Outputs").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/agents/driver.hpp"
#include "sim/metrics/evaluation.hpp"

namespace dlsim {

struct RunTimes {
  double wall_s = 0.0;
  double build_s = 0.0;
  double eval_s = 0.0;
  DriverTimings driver;
};

/// The summary of a finished (or diverged) run. `last` is the final evaluation point (absent
/// when the run diverged before any); fingerprint covers the event trajectory and final params.
nlohmann::json make_summary(const World& world, const RunOutcome& outcome, const EvalPoint* last,
                            uint64_t fingerprint, const RunTimes& times);

/// "0x" and 16 hex digits: JSON numbers lose 64-bit integers in many readers.
std::string fingerprint_string(uint64_t fingerprint);

}  // namespace dlsim

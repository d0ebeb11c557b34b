// summary.json: the headline numbers of a run (README.md, "Outputs"), from what the run layer
// observed (RunFacts), the communication recorder and the last evaluation point.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/metrics/comm_recorder.hpp"
#include "sim/metrics/evaluation.hpp"

namespace dlsim {

/// Wall-clock seconds of a run and where they went.
struct RunTimes {
  double wall_s = 0.0;
  double build_s = 0.0;
  double eval_s = 0.0;
  double training_s = 0.0;  // gradients (and, in sync mode, the algorithms' prepare)
  double events_s = 0.0;    // the event loop: decisions, sends, network, deliveries
  double updates_s = 0.0;   // consensus / mixing / optimizer updates
};

/// Why a run stopped early: a non-finite mini-batch loss, or non-finite parameters after its
/// last update.
struct Divergence {
  int64_t iteration = 0;
  int64_t agent = 0;
  std::string in;  // "loss" or "parameters"
};

/// What the run layer observed of a run, plain data.
struct RunFacts {
  std::string name;
  std::string algorithm;
  uint32_t agents = 0;
  uint64_t parameters = 0;
  int64_t iterations_done = 0;  // completed by every agent
  double decisions = 0;         // trigger decisions taken: the agents' iterations summed
  std::optional<Divergence> diverged;
  uint64_t fingerprint = 0;  // each node's handled events and final parameters
  SimTime simulated;
  uint64_t events_processed = 0;
  bool quadratic = false;
  uint64_t memory_estimate_bytes = 0;  // sim/scenario/memory_estimate.hpp, made before building
  int64_t resumes = 0;                 // times the run continued from a checkpoint
  uint32_t ranks = 1;                  // partitions the agents ran in
  bool virtual_ranks = false;          // the partitions took turns in this one process
  struct {
    int64_t written = 0;        // by this process
    double seconds = 0.0;       // spent writing them
    uint64_t last_bytes = 0;    // the size of the last one
  } checkpoints;
  RunTimes times;
  std::vector<std::string> warnings;
  std::vector<std::vector<uint32_t>> class_counts;  // [agent][class] of the shards
  std::vector<uint32_t> byzantine;  // the Byzantine agents' ids, sorted (empty: none)
};

/// The summary of a finished (or diverged) run. `last` is the final evaluation point (absent
/// when the run diverged before any). Communication totals cover every node (a server too),
/// Byzantine agents included (their share also apart); the final scores cover honest agents.
nlohmann::json make_summary(const RunFacts& facts, const CommRecorder& comm, const EvalPoint* last);

/// "0x" and 16 hex digits: JSON numbers lose 64-bit integers in many readers.
std::string fingerprint_string(uint64_t fingerprint);

}  // namespace dlsim

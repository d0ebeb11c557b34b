// A sweep file: a base scenario and its variations by JSON pointer, expanded into runs.
//   {"base": "../default.json",                     (relative to the sweep file's folder)
//    "set":  {"/run/iterations": 2000},             (fixed overrides for every run)
//    "grid": {"/trigger/v0": [0, 0.3, 1], "/topology/kind": ["ring", "torus"]},
//    "zip":  {"/algorithm/a": [0.05, 0.1], "/algorithm/b": [0.126, 0.25]},
//    "seeds": [1, 2, 3]}
// grid is a Cartesian product (the last key varies fastest), zip varies its keys together (one
// more dimension, after the grid's), and seeds repeat every point (innermost). Every run's
// scenario is validated when the sweep is loaded, so a bad sweep fails before any run starts.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

struct SweepRun {
  std::string id;                     // "<point index>-s<seed>", e.g. "0003-s2"
  size_t point = 0;                   // index of the parameter point (seeds aside)
  uint64_t seed = 0;
  std::vector<nlohmann::json> values;  // one per varied pointer, in SweepSpec::varied order
  ScenarioSpec scenario;
  nlohmann::json resolved;            // scenario_to_json(scenario): what the run's folder holds
};

struct SweepSpec {
  std::string file;                   // the sweep file as given
  std::string base;                   // the base scenario's path, as resolved
  std::vector<std::string> varied;    // grid pointers, then zip pointers, in file order
  std::vector<uint64_t> seeds;        // empty: the base scenario's seed, one run per point
  std::vector<SweepRun> runs;         // points in order, seeds innermost
  nlohmann::ordered_json source;      // the sweep file as read
};

/// Reads, expands and validates a sweep file. InputError, one line naming the file and the JSON
/// pointer (for a run that does not validate, the grid or zip entry responsible when it can be
/// told, and the run's values), when anything is wrong.
SweepSpec load_sweep(const std::string& path);

}  // namespace dlsim

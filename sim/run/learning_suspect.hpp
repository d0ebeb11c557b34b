// The scenario key most likely to blame when a run learns nothing (LearningWatch's `suspect`):
// a guess from what the scenario asks for, in the order such runs go wrong in practice.
#pragma once

#include <string>

#include "sim/scenario/scenario_spec.hpp"

namespace dlsim {

/// One clause naming a JSON pointer and why, e.g. "check /algorithm/b (...)".
std::string learning_suspect(const ScenarioSpec& spec);

}  // namespace dlsim

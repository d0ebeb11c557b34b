// Every algorithm dlsim runs, by its /algorithm/kind name: the one list to extend when adding
// one (docs/architecture.md, "Adding an algorithm").
#pragma once

#include <span>
#include <string_view>

#include "sim/scenario/algorithm_descriptor.hpp"

namespace dlsim {

/// In the order the docs and error messages list them.
std::span<const AlgorithmDescriptor* const> algorithm_descriptors();
/// Null when no algorithm has that name.
const AlgorithmDescriptor* find_algorithm(std::string_view name);

}  // namespace dlsim
